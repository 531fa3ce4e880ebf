// The three dependency patches that keep a request from outliving its answer
// (patches/fets+0.8.11.patch, patches/@whatwg-node+server+0.11.0.patch,
// patches/@graphql-yoga+plugin-sofa+3.24.1.patch), each held to its patched behaviour: what the
// request and its contexts carry once handled. Unpatched, each library defines that state in a
// way V8 keeps alive past the next young-generation collection (a getter made for each request,
// a context made the prototype of the next, a WeakMap entry), and each check below fails.
import { useSofa } from '@graphql-yoga/plugin-sofa';
import { isolateObject } from '@whatwg-node/server';
import { createRouter, Response } from 'fets';
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';

describe("fets' router (SOFA's REST routes)", () => {
  it('gives each request data properties and one shared query getter, not getters of its own', async () => {
    const seen: object[] = [];
    const router = createRouter().route({
      method: 'GET',
      path: '/items/:id',
      handler: (request) => {
        seen.push(request);
        return Response.json({ id: request.params.id, query: request.query });
      },
    });
    const first = await router.fetch('http://localhost/items/a%20b?x=1&y=2');
    await router.fetch('http://localhost/items/c');
    // what a route sees is unchanged: the decoded parameter and the parsed query
    expect(await first.json()).toEqual({ id: 'a b', query: { x: '1', y: '2' } });
    const [a, b] = seen.map((request) => ({
      parsedUrl: Object.getOwnPropertyDescriptor(request, 'parsedUrl'),
      query: Object.getOwnPropertyDescriptor(request, 'query'),
      params: Object.getOwnPropertyDescriptor(request, 'params'),
    }));
    // unpatched, parsedUrl and params are getters closed over the request, made per request
    expect(a?.parsedUrl?.value).toBeInstanceOf(URL);
    expect(a?.parsedUrl?.get).toBeUndefined();
    expect(a?.params?.get).toBeUndefined();
    expect(a?.params?.value.id).toBe('a b');
    // unpatched, each request's query getter is a new closure
    expect(typeof a?.query?.get).toBe('function');
    expect(a?.query?.get).toBe(b?.query?.get);
  });
});

describe("@whatwg-node/server's isolateObject (each request's server context)", () => {
  it('copies a plain context instead of making it the prototype of a new one', () => {
    const context = { req: 'the incoming message', res: 'its answer' };
    const waitUntil = () => {};
    const isolated = isolateObject(context, waitUntil) as Record<string, unknown>;
    // unpatched: Object.create(context), so the context is the isolated one's prototype
    expect(Object.getPrototypeOf(isolated)).toBe(Object.prototype);
    expect(isolated).toMatchObject({ ...context, waitUntil });
    expect(isolated).not.toBe(context);
  });

  it("copies what plugins keep under symbols, and keeps the context's own waitUntil", () => {
    const state = Symbol('state');
    const own = () => {};
    const context = { req: 'the incoming message', waitUntil: own, [state]: { kind: 'rest' } };
    const isolated = isolateObject(context, undefined) as typeof context;
    expect(isolated[state]).toBe(context[state]);
    expect(isolated.waitUntil).toBe(own);
  });

  it('still inherits from a context that has a prototype of its own', () => {
    class Context {
      get who() {
        return 'a class instance';
      }
    }
    const context = new Context();
    const isolated = isolateObject(context, () => {}) as Context;
    expect(Object.getPrototypeOf(isolated)).toBe(context);
    expect(isolated.who).toBe('a class instance');
  });
});

describe("@graphql-yoga/plugin-sofa's context", () => {
  it('carries its enveloped under a symbol on the GraphQL context, not in a WeakMap keyed by it', async () => {
    const contexts: object[] = [];
    const yoga = createYoga({
      schema: createSchema({
        typeDefs: 'type Query { hello: String }',
        resolvers: {
          Query: {
            hello: (_root: unknown, _args: unknown, context: object) => {
              contexts.push(context);
              return 'hi';
            },
          },
        },
      }),
      plugins: [useSofa({ basePath: '/rest' })],
      logging: false,
    });
    const res = await yoga.fetch('http://localhost/rest/hello');
    expect(res.status).toBe(200);
    expect(await res.json()).toBe('hi');
    expect(contexts).toHaveLength(1);
    // unpatched, the context has no such key: the plugin finds its enveloped in a WeakMap
    const symbols = Object.getOwnPropertySymbols(contexts[0]!).map((s) => s.description);
    expect(symbols).toContain('sofa.enveloped');
  });
});
