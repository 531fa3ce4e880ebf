// A PostgreSQL wire-protocol server over one PGlite instance, for the pg driver adapter.
// PGlite runs one thing at a time, so connections take turns. The socket server shipped
// with PGlite takes turns per protocol *message*, which lets another connection's Parse
// land between a Parse and its Bind (electric-sql/pglite#1046: wrong or failed queries
// under concurrency). Here a turn is a whole unit: every message up to and including
// Sync (or a simple Query), and while a unit leaves a transaction open, only that
// connection's units run until it closes.
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
/** Message types that end a unit: Sync, simple Query, Terminate. */
const UNIT_END = new Set(['S', 'Q', 'X']);

interface Unit {
  conn: number;
  messages: Uint8Array[];
  write: (data: Uint8Array) => void;
  done: () => void;
}

export class PGliteServer {
  private server?: net.Server;
  private queue: Unit[] = [];
  private running = false;
  /** The connection holding an open transaction, if any. */
  private owner: number | null = null;
  private nextConn = 1;
  private sockets = new Set<net.Socket>();

  constructor(private readonly db: PGlite) {}

  async start(host = '127.0.0.1', port = 0): Promise<number> {
    await this.db.waitReady;
    this.server = net.createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, resolve);
    });
    return (this.server.address() as net.AddressInfo).port;
  }

  async stop() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(socket: net.Socket) {
    const conn = this.nextConn++;
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    let started = false;
    let pending: Uint8Array[] = [];
    let chain = Promise.resolve();
    const write = (data: Uint8Array) => {
      if (!socket.destroyed) socket.write(data);
    };

    socket.on('data', (chunk) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST) {
            write(Buffer.from('N'));
          } else if (code === CANCEL_REQUEST) {
            socket.end();
            return;
          } else {
            started = true;
            chain = chain.then(() => this.submit(conn, [message], write));
          }
          continue;
        }
        if (buffer.length < 5) return;
        const length = buffer.readInt32BE(1) + 1;
        if (buffer.length < length) return;
        const type = String.fromCharCode(buffer[0]!);
        pending.push(buffer.subarray(0, length));
        buffer = buffer.subarray(length);
        if (type === 'X') {
          socket.end();
          return;
        }
        if (UNIT_END.has(type)) {
          const unit = pending;
          pending = [];
          chain = chain.then(() => this.submit(conn, unit, write));
        }
      }
    });
    const closed = () => {
      this.sockets.delete(socket);
      this.queue = this.queue.filter((u) => (u.conn === conn ? (u.done(), false) : true));
      // a connection that dies inside a transaction must not hold the database
      chain = chain.then(async () => {
        if (this.owner === conn) {
          this.owner = null;
          await this.db.exec('ROLLBACK').catch(() => {});
          this.drain();
        }
      });
    };
    socket.on('close', closed);
    socket.on('error', () => socket.destroy());
  }

  private submit(conn: number, messages: Uint8Array[], write: Unit['write']) {
    return new Promise<void>((done) => {
      this.queue.push({ conn, messages, write, done });
      this.drain();
    });
  }

  private async drain() {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const index = this.owner === null ? 0 : this.queue.findIndex((u) => u.conn === this.owner);
        if (index === -1 || this.queue.length === 0) break;
        const [unit] = this.queue.splice(index, 1);
        await this.db.runExclusive(async () => {
          for (const message of unit!.messages) {
            await this.db.execProtocolRawStream(message, { onRawData: unit!.write });
          }
        });
        this.owner = this.db.isInTransaction() ? unit!.conn : null;
        unit!.done();
      }
    } finally {
      this.running = false;
    }
  }
}
