// The demo shop's page: sends the cart (products and quantities only) to the shop's server, which
// creates the Paylink order and answers its id; then pays it with <paylink-checkout order="…">. The
// order's id is kept in the address (?order=…), so a reload shows that order again, as it is.
const form = document.getElementById('cart');
const status = document.getElementById('cart-status');
const pay = document.getElementById('pay');

/** Shows the checkout of order `id` in place of the cart. */
function showOrder(id) {
  const checkout = document.createElement('paylink-checkout');
  checkout.setAttribute('order', id);
  pay.replaceChildren(checkout);
  pay.hidden = false;
  form.hidden = true;
  document.getElementById('new-order').hidden = false;
}

const kept = new URLSearchParams(location.search).get('order');
if (kept) showOrder(kept);

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const items = [...form.querySelectorAll('input[type=number]')]
    .map((input) => ({ sku: input.name, quantity: Number(input.value) }))
    .filter((item) => item.quantity > 0);
  if (!items.length) {
    status.textContent = 'Add something to the cart first.';
    return;
  }
  const button = form.querySelector('button');
  button.disabled = true;
  status.textContent = 'Creating your order…';
  try {
    const response = await fetch('/shop/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message ?? `the shop answered ${response.status}`);
    history.replaceState(null, '', `?order=${encodeURIComponent(body.id)}`);
    status.textContent = '';
    showOrder(body.id);
  } catch (error) {
    status.textContent = `No order: ${error.message}`;
  } finally {
    button.disabled = false;
  }
});
