// What every checking plugin shares: its check runs in onRequest, before SOFA and Yoga see
// the request; a check that throws our error (or meets an unreachable database) ends the
// request with that error in the shape its kind of request answers in (REST envelope or GraphQL errors),
// and a check that returns a Response ends it with that answer.
import type { Plugin } from 'graphql-yoga';
import { clientAddress, peerOf, trustNone } from '../client-address.js';
import { asAppError, refusal } from '../errors.js';
import { type RequestState, requestState } from '../request-state.js';

type OnRequest = NonNullable<Plugin['onRequest']>;
type OnRequestPayload = Parameters<OnRequest>[0];

export interface CheckPayload {
  request: Request;
  url: URL;
  state: RequestState;
  setRequest: OnRequestPayload['setRequest'];
  /** The server's fetch classes (whatwg-node's, lighter than the platform's on Node). */
  fetchAPI: OnRequestPayload['fetchAPI'];
  /** The client's address (plugins/client-address.ts; without it, the socket's peer, or 'local' for an in-process call). */
  client: string;
}

/** A check returns the refusal to answer with, or nothing (void: most checks are written without a return) to let the request on. */
// biome-ignore lint/suspicious/noConfusingVoidType: see above
export function checkRequest(check: (payload: CheckPayload) => Promise<Response | void> | Response | void): OnRequest {
  // a check that answers at once is handled at once: Yoga runs the hooks of a request one after
  // another, and each hook that returns a promise costs the request promises and a turn of the
  // event loop, and most checks, on most requests, have nothing to wait for
  return ({ request, url, serverContext, setRequest, fetchAPI, endResponse }) => {
    const state = requestState(serverContext);
    // biome-ignore lint/suspicious/noConfusingVoidType: a check's answer, as above
    const answer = (response: Response | void) => {
      if (response) endResponse(response);
    };
    const refuse = (err: unknown) => endResponse(refusal(asAppError(err), state.kind));
    let result: ReturnType<typeof check>;
    try {
      const client = (state.client ??= clientAddress(peerOf(serverContext), undefined, trustNone));
      result = check({ request, url, state, setRequest, fetchAPI, client });
    } catch (err) {
      return refuse(err);
    }
    if (result instanceof Promise) return result.then(answer, refuse);
    answer(result);
  };
}
