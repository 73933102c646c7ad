// Installable pages (issue 36, item 5): the service worker that keeps the shell (sw.js). Every
// page loads this module; a browser without service workers, or a page that is not secure,
// simply goes without (the pages work as before).
if ("serviceWorker" in navigator && window.isSecureContext) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
    // Refused (private browsing, a policy): the pages work without it.
  });
}
