// One HTTP attempt of a delivery: POST the event's stored body, signed, within the timeout,
// to an address the SSRF guard allows. Node's own http/https client, whose `lookup` hook lets
// the guard vet the very addresses the connection uses (fetch has no such hook).
import http from 'node:http';
import https from 'node:https';
import { signatureHeaders } from './signature.js';
import { checkWebhookUrl, guardedLookup } from './url-guard.js';

const RESPONSE_KEPT = 1000;

export interface Attempt {
  /** The answer's status; null when there was none (refused, timed out, unsafe address). */
  status: number | null;
  /** The start of the answer's body, or why there was no answer. */
  response: string;
  /** The answer's Retry-After header, as sent. */
  retryAfter?: string;
}

export interface WebhookRequest {
  url: string;
  /** The endpoint's signing secrets, newest first (two during a rotation's overlap). */
  secrets: string[];
  eventId: string;
  eventType: string;
  deliveryId: string;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
}

export const isSuccess = (a: Attempt) => a.status !== null && a.status >= 200 && a.status < 300;

export async function postWebhook(req: WebhookRequest): Promise<Attempt> {
  const unsafe = await checkWebhookUrl(req.url, req.allowPrivate);
  if (unsafe) return { status: null, response: `not sent: the URL ${unsafe}` };
  const url = new URL(req.url);
  const client = url.protocol === 'https:' ? https : http;
  const signal = AbortSignal.timeout(req.timeoutMs); // one deadline for the attempt, a resend included
  const send = (mayResend: boolean) =>
    new Promise<Attempt>((resolve) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          lookup: guardedLookup(req.allowPrivate),
          signal,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(req.body),
            'user-agent': 'loyalty-webhooks/1',
            ...signatureHeaders(req.secrets, req.eventId, req.body),
            'loyalty-event-id': req.eventId,
            'loyalty-event-type': req.eventType,
            'loyalty-delivery-id': req.deliveryId,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < RESPONSE_KEPT) text += chunk;
          });
          const retryAfter = res.headers['retry-after'];
          res.on('end', () =>
            resolve({ status: res.statusCode ?? null, response: text.slice(0, RESPONSE_KEPT), ...(retryAfter ? { retryAfter } : {}) }),
          );
          res.on('error', (err) => resolve({ status: res.statusCode ?? null, response: text || err.message }));
        },
      );
      request.on('error', (err: NodeJS.ErrnoException) => {
        // a kept-alive connection the receiver closed as idle just as this request went out: it
        // was not read, so it is sent once more on a new connection (Node's documented remedy)
        // rather than counted as a failed attempt and retried a backoff later
        if (mayResend && request.reusedSocket && err.code === 'ECONNRESET') return resolve(send(false));
        const why = err.name === 'AbortError' || err.name === 'TimeoutError' ? `no answer within ${req.timeoutMs} ms` : err.message;
        resolve({ status: null, response: why });
      });
      request.end(req.body);
    });
  return send(true);
}
