// A PostgreSQL wire-protocol server over one PGlite instance, for the pg driver adapter.
// PGlite runs one thing at a time, so connections take turns. The socket server shipped
// with PGlite takes turns per protocol *message*, which lets another connection's Parse
// land between a Parse and its Bind (electric-sql/pglite#1046: wrong or failed queries
// under concurrency). Here a turn is a whole unit: every message up to and including
// Sync (or a simple Query), and while a unit leaves a transaction open, only that
// connection's units run until it closes.
// PGlite is one session, so a NOTIFY comes back in the output of whichever connection ran
// the committing statement; the server routes each notification to the connections that
// LISTEN on its channel instead (LISTEN/UNLISTEN sent as simple queries, as pg sends them).
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
/** Message types that end a unit: Sync, simple Query, Terminate. */
const UNIT_END = new Set(['S', 'Q', 'X']);

/** Backend message type of a notification (NotificationResponse). */
const NOTIFICATION = 0x41; // 'A'
const LISTEN = /^\s*(UN)?LISTEN\s+("?)([\w$]+|\*)\2\s*;?\s*$/i;

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
  /** Per connection: the channels it listens on, and how to write to it. */
  private listeners = new Map<number, { channels: Set<string>; write: (data: Uint8Array) => void }>();

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
        if (type === 'Q') this.trackListen(conn, buffer.subarray(5, length - 1).toString('utf8'), write);
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
      this.listeners.delete(conn);
      for (const u of this.queue) if (u.conn === conn) u.done();
      this.queue = this.queue.filter((u) => u.conn !== conn);
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
        const output = new OutputRouter(unit!.write, (message) => this.notify(message));
        await this.db.runExclusive(async () => {
          for (const message of unit!.messages) {
            await this.db.execProtocolRawStream(message, { onRawData: (data) => output.write(data) });
          }
        });
        output.end();
        this.owner = this.db.isInTransaction() ? unit!.conn : null;
        unit!.done();
      }
    } finally {
      this.running = false;
    }
  }

  /** Remembers what a simple query LISTENs to (or stops listening to). */
  private trackListen(conn: number, sql: string, write: (data: Uint8Array) => void) {
    const match = LISTEN.exec(sql.replace(/\0$/, ''));
    if (!match) return;
    const [, un, quoted, name] = match;
    const channel = quoted ? name! : name!.toLowerCase();
    const entry = this.listeners.get(conn) ?? { channels: new Set<string>(), write };
    if (!un) entry.channels.add(channel);
    else if (channel === '*') entry.channels.clear();
    else entry.channels.delete(channel);
    this.listeners.set(conn, entry);
  }

  /** Sends a NotificationResponse to every connection listening on its channel. */
  private notify(message: Uint8Array) {
    const end = message.indexOf(0, 9);
    const channel = Buffer.from(message.subarray(9, end)).toString('utf8');
    for (const { channels, write } of this.listeners.values()) if (channels.has(channel)) write(message);
  }
}

/**
 * The output of one unit, passed through as it comes, except notifications, which are
 * taken out and handed to `notify` (messages may span chunks: the part of a message not
 * yet complete is held back until it is).
 */
class OutputRouter {
  private held: Buffer | null = null;

  constructor(
    private readonly pass: (data: Uint8Array) => void,
    private readonly notify: (message: Uint8Array) => void,
  ) {}

  write(chunk: Uint8Array) {
    const data = this.held ? Buffer.concat([this.held, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.held = null;
    let start = 0; // first byte not yet written
    let at = 0;
    while (at + 5 <= data.length) {
      const end = at + 1 + data.readInt32BE(at + 1);
      if (end > data.length) break;
      if (data[at] === NOTIFICATION) {
        if (at > start) this.pass(data.subarray(start, at));
        this.notify(data.subarray(at, end));
        start = end;
      }
      at = end;
    }
    if (at > start) this.pass(data.subarray(start, at));
    if (at < data.length) this.held = Buffer.from(data.subarray(at));
  }

  /** A unit's output ends with whole messages; anything held is passed on as it is. */
  end() {
    if (this.held) this.pass(this.held);
    this.held = null;
  }
}
