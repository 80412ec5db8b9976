/* global self, URL */
/*
 * NTF-1: the web app's service worker for web push. The server's push message carries a title and
 * a link to the decision (never a secret); showing it needs no page open, and a tap opens the link —
 * in a window of the app that is already open when there is one.
 */
self.addEventListener('push', (event) => {
  let message = { title: 'Control Center', url: '/' };
  try {
    message = { ...message, ...event.data.json() };
  } catch {
    // A push without a readable JSON payload still tells the person something waits.
  }
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: 'Open in Control Center',
      tag: message.id,
      data: { url: message.url },
      icon: '/favicon.svg',
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url ?? '/', self.location.origin);
  // Only links into this app are opened: the payload is the server's, but a tap never leaves the origin.
  const url = target.origin === self.location.origin ? target.href : self.location.origin;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => 'focus' in client);
      if (open) return open.navigate(url).then((client) => (client ?? open).focus());
      return self.clients.openWindow(url);
    }),
  );
});
