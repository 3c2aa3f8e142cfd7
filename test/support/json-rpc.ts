/** One JSON-RPC 2.0 request over HTTP, as a node's client sends it: the answer's HTTP status, result and error. */
export async function jsonRpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ status: number; result: any; error?: { code: number; message: string } }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  return { status: response.status, result: body.result, ...(body.error ? { error: body.error } : {}) };
}

/** The result of a JSON-RPC request; throws with the node's message when it answers an error. */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const { result, error } = await jsonRpc(url, method, params);
  if (error) throw new Error(error.message);
  return result;
}
