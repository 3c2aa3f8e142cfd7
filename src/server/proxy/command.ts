/** `paylink proxy`: placeholder until the proxy lands (issue 4). */
export async function runProxyCommand(_options: { port: number; host?: string | undefined; upstream?: string | undefined }, _onSignal: (close: () => Promise<void>) => void): Promise<void> {
  throw new Error('the proxy is not built yet');
}
