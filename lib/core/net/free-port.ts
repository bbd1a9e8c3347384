// A TCP port nobody listens on, on 127.0.0.1: for private servers (npm start's PostgreSQL and
// Redis, test and benchmark servers). The preferred one (last time's) when it is still free.
import net from 'node:net';

function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

export async function freePort(preferred?: number): Promise<number> {
  if (preferred) {
    const port = await tryPort(preferred);
    if (port) return port;
  }
  const port = await tryPort(0);
  if (!port) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}
