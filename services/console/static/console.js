// Progressive enhancement only: every page works without this script.
// - a button that copies a secret shown once (data-copy="<element id>");
// - a confirmation before a destructive form is sent (data-confirm="question").
document.addEventListener('click', (e) => {
  const t = e.target instanceof Element ? e.target.closest('[data-copy]') : null;
  if (!t) return;
  const el = document.getElementById(t.getAttribute('data-copy') || '');
  if (el && navigator.clipboard) {
    void navigator.clipboard.writeText(el.textContent.trim()).then(() => {
      t.textContent = 'Copied';
    });
  }
});
document.addEventListener('submit', (e) => {
  const f = e.target;
  if (f instanceof HTMLFormElement && f.dataset.confirm && !window.confirm(f.dataset.confirm))
    e.preventDefault();
});
