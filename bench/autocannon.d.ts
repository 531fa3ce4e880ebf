// autocannon ships no types; the little the benchmark uses.
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (req: Request, context: object) => Request;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      timeout?: number;
      requests?: Request[];
    }
    /** The running job: awaitable until it ends (the figures come from its events), and an emitter of each response. */
    interface Instance extends PromiseLike<unknown> {
      on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): Instance;
      on(event: 'reqError', listener: (err: Error) => void): Instance;
    }
  }
  function autocannon(opts: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
