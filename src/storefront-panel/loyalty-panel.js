/*
 * <loyalty-panel>: the loyalty program on any page, as one custom element with no framework
 * and no request but to the loyalty service's /graphql.
 *
 *   <script src="https://loyalty.example.com/storefront/loyalty-panel.js" defer></script>
 *   <loyalty-panel publishable-key="lpk_pub_…"></loyalty-panel>                  signed out
 *   <loyalty-panel publishable-key="lpk_pub_…" session-token="eyJ…"></loyalty-panel>  a shopper
 *
 * Attributes (and the same-named properties): publishable-key, session-token, endpoint (the
 * service's /graphql; by default the one beside this script), locale (numbers and dates; by
 * default the page's lang), strings (JSON; or the `strings` property, an object): any of the
 * texts below. Themed by CSS custom properties (--loyalty-accent, --loyalty-text, …, see
 * STYLE) and ::part(panel|heading|button|code|error). Events: `loyalty-redeemed` (detail:
 * reward, code), `loyalty-referred` (detail: email, status), `loyalty-error` (detail: code, message).
 *
 * Served as it is written (no build step): plain JavaScript the browsers of the last years run.
 */
(() => {
  'use strict';
  if (customElements.get('loyalty-panel')) return;

  const script = document.currentScript;
  const DEFAULT_ENDPOINT = script?.src ? new URL('/graphql', script.src).href : '/graphql';

  /** Every text the panel shows; {name} is replaced by the value of that name. */
  const STRINGS = {
    title: 'Rewards',
    loading: 'Loading rewards…',
    hello: 'Hi {name}',
    balance: 'Your points',
    points: '{n} points',
    signIn: 'Sign in to earn points and redeem rewards.',
    waysToEarn: 'Ways to earn',
    rewards: 'Rewards',
    tiers: 'Tiers',
    tierFrom: 'from {n}',
    currentTier: 'Your tier: {name}',
    nextTier: '{n} more to reach {name}',
    topTier: 'You are in the top tier.',
    tierProgress: 'Progress to {name}',
    redeemable: 'Rewards you can redeem',
    noRedeemable: 'Keep earning to unlock a reward.',
    redeem: 'Redeem',
    redeemLabel: 'Redeem {name} for {n} points',
    redeeming: 'Redeeming…',
    yourCode: 'Your code for {name}',
    copy: 'Copy',
    copied: 'Copied',
    activity: 'Recent activity',
    noActivity: 'No activity yet.',
    referral: 'Refer a friend',
    referralOffer: 'Earn {n} points for each friend you refer.',
    referralLink: 'Your referral link',
    referralCode: 'Your referral code',
    friendEmail: 'Your friend’s email',
    send: 'Send invitation',
    sending: 'Sending…',
    referred: '{email} is invited.',
    referredHeld: 'Thanks: your referral of {email} is under review.',
    referError: 'This friend could not be referred.',
    yourReferrals: 'Your referrals',
    pending: 'Invited',
    completed: 'Completed',
    held: 'Under review',
    rejected: 'Not accepted',
    expired: 'Expired',
    empty: 'Nothing here yet.',
    error: 'Rewards could not be loaded.',
    redeemError: 'The reward could not be redeemed.',
    retry: 'Try again',
  };

  const STYLE = `
:host { display: block; font: var(--loyalty-font, inherit); color: var(--loyalty-text, #1f2937); }
[hidden] { display: none !important; }
.panel { background: var(--loyalty-background, #fff); border: 1px solid var(--loyalty-border, #d1d5db);
  border-radius: var(--loyalty-radius, 8px); padding: var(--loyalty-padding, 1rem 1.25rem); max-width: var(--loyalty-width, 28rem); }
h2 { font-size: 1.25em; margin: 0 0 .5rem; }
h3 { font-size: 1em; margin: 1rem 0 .4rem; }
p { margin: .25rem 0; }
ul { list-style: none; margin: 0; padding: 0; }
li { display: flex; justify-content: space-between; align-items: center; gap: .75rem; padding: .4rem 0;
  border-top: 1px solid var(--loyalty-border, #d1d5db); }
li:first-child { border-top: 0; }
.muted { color: var(--loyalty-muted, #4b5563); font-size: .9em; }
.balance { font-size: 1.6em; font-weight: 700; margin: 0; }
.plus { color: var(--loyalty-positive, #166534); }
.minus { color: var(--loyalty-negative, #991b1b); }
button { font: inherit; cursor: pointer; border-radius: var(--loyalty-radius, 8px); padding: .35rem .8rem;
  background: var(--loyalty-accent, #1d4ed8); color: var(--loyalty-accent-text, #fff); border: 1px solid transparent; }
button.secondary { background: transparent; color: var(--loyalty-accent, #1d4ed8); border-color: currentColor; }
button:disabled { opacity: .6; cursor: progress; }
input { font: inherit; padding: .3rem .5rem; border: 1px solid var(--loyalty-border, #d1d5db); border-radius: var(--loyalty-radius, 8px);
  background: var(--loyalty-background, #fff); color: inherit; max-width: 100%; }
form { margin: .5rem 0; }
button:focus-visible, input:focus-visible, .code:focus-visible { outline: 3px solid var(--loyalty-focus, #f59e0b); outline-offset: 2px; }
progress { width: 100%; height: .6rem; accent-color: var(--loyalty-accent, #1d4ed8); }
.code { background: var(--loyalty-surface, #f3f4f6); border-radius: var(--loyalty-radius, 8px); padding: .6rem .8rem; margin: .5rem 0; }
.code strong { font-family: var(--loyalty-code-font, ui-monospace, monospace); font-size: 1.15em; letter-spacing: .05em; }
.error { color: var(--loyalty-negative, #991b1b); }
.link { overflow-wrap: anywhere; }
`;

  const ACTIVITY = '{ data { id description points_change occurred_at } }';
  const EARNING = 'earning_rules(per_page: 20) { data { id name description } }';
  const REFERRAL = 'referral_program { data { is_active share_url_template referrer_reward { points } } }';
  const GUEST = `query LoyaltyPanelGuest {
  rewards(per_page: 20) { data { id name description points_cost } }
  ${EARNING}
  tiers(per_page: 20) { data { id name threshold } }
  ${REFERRAL}
}`;
  const SHOPPER = `query LoyaltyPanelShopper {
  me {
    first_name referral_code points_balance
    referrals(per_page: 5) { data { id referee_email status } }
    tier_status { current_tier { name } next_tier { name } progress { value next_threshold remaining } }
    redeemable_rewards(per_page: 20) { data { id name points_cost } }
    activities(per_page: 5) ${ACTIVITY}
  }
  ${EARNING}
  ${REFERRAL}
}`;
  const REDEEM = `mutation LoyaltyPanelRedeem($id: ID!) {
  redeem_reward(reward_id: $id) { data { code reward { name } } }
}`;
  const REFER = `mutation LoyaltyPanelRefer($email: String!) {
  refer_friend(referee_email: $email) { data { referee_email status } }
}`;

  /** An element with attributes (on*: listeners) and children (strings become text, never HTML). */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value == null || value === false) continue;
      if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat(Infinity)) if (child != null && child !== false) el.append(child);
    return el;
  }

  /** A fresh Idempotency-Key for one click: a retried request never acts twice. */
  const oneKey = () => ({ 'idempotency-key': crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}` });

  let ids = 0;
  const sheet = typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype ? new CSSStyleSheet() : null;
  if (sheet) sheet.replaceSync(STYLE);

  class LoyaltyPanel extends HTMLElement {
    static get observedAttributes() {
      return ['publishable-key', 'session-token', 'endpoint', 'locale', 'strings'];
    }

    constructor() {
      super();
      this._root = this.attachShadow({ mode: 'open' });
      // constructed styles pass a page's CSP that refuses inline <style>
      if (sheet) this._root.adoptedStyleSheets = [sheet];
      else this._root.append(h('style', {}, STYLE));
      this._strings = {};
      this._id = `lp${++ids}`;
      this._issued = null;
      this._referred = null;
      this._loading = 0;
    }

    get publishableKey() {
      return this.getAttribute('publishable-key');
    }
    set publishableKey(v) {
      this._set('publishable-key', v);
    }
    get sessionToken() {
      return this.getAttribute('session-token');
    }
    set sessionToken(v) {
      this._set('session-token', v);
    }
    get endpoint() {
      return this.getAttribute('endpoint') || DEFAULT_ENDPOINT;
    }
    set endpoint(v) {
      this._set('endpoint', v);
    }
    /** The texts in use; setting an object replaces any of them. */
    get strings() {
      return { ...STRINGS, ...this._attrStrings(), ...this._strings };
    }
    set strings(v) {
      this._strings = { ...v };
      this._render();
    }

    _set(name, value) {
      if (value == null || value === '') this.removeAttribute(name);
      else this.setAttribute(name, value);
    }

    _attrStrings() {
      try {
        return JSON.parse(this.getAttribute('strings') || '{}');
      } catch {
        return {};
      }
    }

    connectedCallback() {
      this.load();
    }

    attributeChangedCallback(name, before, after) {
      if (!this.isConnected || before === after) return;
      if (name === 'strings' || name === 'locale') this._render();
      else {
        this._issued = null;
        this._referred = null;
        this.load();
      }
    }

    /** A text with its {placeholders} filled. */
    t(key, values) {
      const text = String(this.strings[key] ?? key);
      return text.replace(/\{(\w+)\}/g, (all, name) => (values && name in values ? String(values[name]) : all));
    }

    _locale() {
      return this.getAttribute('locale') || document.documentElement.lang || undefined;
    }
    _n(n) {
      return new Intl.NumberFormat(this._locale()).format(n);
    }
    _date(iso) {
      return new Intl.DateTimeFormat(this._locale(), { dateStyle: 'medium' }).format(new Date(iso));
    }

    async _ask(query, variables, headers) {
      const credential = this.sessionToken || this.publishableKey;
      const res = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(credential && { authorization: `Bearer ${credential}` }), ...headers },
        body: JSON.stringify({ query, variables }),
        credentials: 'omit',
      });
      let body;
      try {
        body = await res.json();
      } catch {
        body = null;
      }
      const error = body?.errors?.[0];
      if (error || !res.ok || !body || !body.data) {
        const failure = new Error(error?.message || `HTTP ${res.status}`);
        failure.code = error?.extensions?.code || `http_${res.status}`;
        throw failure;
      }
      return body.data;
    }

    /** Reads the guest view (no session) or the shopper's view, and draws it. */
    async load() {
      const turn = ++this._loading;
      this._state = { loading: true };
      this._render();
      try {
        const data = await this._ask(this.sessionToken ? SHOPPER : GUEST);
        if (turn === this._loading) this._state = { data };
      } catch (err) {
        if (turn === this._loading) this._state = { error: err };
        this._emit('loyalty-error', { code: err.code, message: err.message });
      }
      if (turn === this._loading) this._render();
    }

    _emit(type, detail) {
      this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
    }

    async _redeem(reward, button) {
      button.disabled = true;
      button.textContent = this.t('redeeming');
      this._redeemError = null;
      try {
        const data = await this._ask(REDEEM, { id: reward.id }, oneKey());
        const issued = data.redeem_reward.data;
        this._issued = { name: issued.reward.name, code: issued.code };
        this._emit('loyalty-redeemed', { reward: reward.id, code: issued.code });
        await this.load();
        const code = this._root.getElementById(`${this._id}-code`);
        if (code) code.focus();
      } catch (err) {
        this._redeemError = err;
        this._emit('loyalty-error', { code: err.code, message: err.message });
        this._render();
        const alert = this._root.getElementById(`${this._id}-redeem-error`);
        if (alert) alert.focus();
      }
    }

    async _refer(form) {
      const input = form.elements.email;
      const button = form.querySelector('button');
      const email = input.value.trim();
      if (!email) return input.focus();
      button.disabled = true;
      button.textContent = this.t('sending');
      try {
        const data = await this._ask(REFER, { email }, oneKey());
        const referral = data.refer_friend.data;
        // a referral held for review is an answer, not an error: the shopper is told so
        this._referred = { text: this.t(referral.status === 'held' ? 'referredHeld' : 'referred', { email: referral.referee_email }) };
        this._emit('loyalty-referred', { email: referral.referee_email, status: referral.status });
        await this.load();
      } catch (err) {
        this._referred = { error: true, text: this.t('referError') };
        this._emit('loyalty-error', { code: err.code, message: err.message });
        this._render();
      }
      const said = this._root.getElementById(`${this._id}-referred`);
      if (said) said.focus();
    }

    _render() {
      const state = this._state || { loading: true };
      const title = h('h2', { id: `${this._id}-title`, part: 'heading' }, this.t('title'));
      let body;
      if (state.loading) body = [h('p', { role: 'status' }, this.t('loading'))];
      else if (state.error) body = this._errorView();
      else body = this.sessionToken ? this._shopperView(state.data) : this._guestView(state.data);
      const panel = h(
        'section',
        { class: 'panel', part: 'panel', 'aria-labelledby': `${this._id}-title`, 'aria-busy': state.loading ? 'true' : null },
        title,
        body,
      );
      this._root.replaceChildren(...[...this._root.children].filter((c) => c.tagName === 'STYLE'), panel);
    }

    _errorView() {
      return [
        h('p', { class: 'error', role: 'alert', part: 'error' }, this.t('error')),
        h('button', { type: 'button', part: 'button', onclick: () => this.load() }, this.t('retry')),
      ];
    }

    _section(key, items, empty) {
      const id = `${this._id}-${key}`;
      return [
        h('h3', { id }, this.t(key)),
        items.length ? h('ul', { 'aria-labelledby': id }, items) : h('p', { class: 'muted' }, empty || this.t('empty')),
      ];
    }

    _earning(data) {
      return this._section(
        'waysToEarn',
        data.earning_rules.data.map((r) =>
          h('li', {}, h('span', {}, r.name, r.description ? h('span', { class: 'muted' }, h('br'), r.description) : null)),
        ),
      );
    }

    _referral(data, me) {
      const program = data.referral_program.data;
      if (!program?.is_active) return [];
      const points = program.referrer_reward ? program.referrer_reward.points : 0;
      const out = [h('h3', {}, this.t('referral')), points ? h('p', {}, this.t('referralOffer', { n: this._n(points) })) : null];
      if (!me) return out;
      const code = me.referral_code;
      const link = program.share_url_template ? program.share_url_template.replace('{referral_code}', encodeURIComponent(code)) : null;
      const said = this._referred;
      const field = `${this._id}-friend`;
      out.push(
        h('p', { class: 'muted' }, this.t(link ? 'referralLink' : 'referralCode')),
        h('p', { class: 'link' }, h('strong', {}, link || code), ' ', this._copyButton(link || code)),
        h(
          'form',
          {
            onsubmit: (event) => {
              event.preventDefault();
              this._refer(event.currentTarget);
            },
          },
          h('label', { for: field }, this.t('friendEmail')),
          ' ',
          h('input', { id: field, name: 'email', type: 'email', autocomplete: 'off', required: true }),
          ' ',
          h('button', { type: 'submit', part: 'button' }, this.t('send')),
        ),
        said
          ? h(
              'p',
              {
                id: `${this._id}-referred`,
                tabindex: '-1',
                ...(said.error ? { role: 'alert', class: 'error', part: 'error' } : { role: 'status' }),
              },
              said.text,
            )
          : null,
      );
      const referrals = me.referrals.data;
      if (referrals.length) {
        out.push(
          ...this._section(
            'yourReferrals',
            referrals.map((r) =>
              h('li', {}, h('span', { class: 'link' }, r.referee_email), h('span', { class: 'muted' }, this.t(r.status))),
            ),
          ),
        );
      }
      return out;
    }

    _copyButton(text) {
      if (!navigator.clipboard) return null;
      const button = h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          part: 'button',
          onclick: () =>
            navigator.clipboard.writeText(text).then(
              () => {
                button.textContent = this.t('copied');
              },
              () => {},
            ),
        },
        this.t('copy'),
      );
      return button;
    }

    _guestView(data) {
      return [
        h('p', {}, this.t('signIn')),
        ...this._earning(data),
        ...this._section(
          'rewards',
          data.rewards.data.map((r) =>
            h('li', {}, h('span', {}, r.name), h('span', { class: 'muted' }, this.t('points', { n: this._n(r.points_cost) }))),
          ),
        ),
        ...this._section(
          'tiers',
          data.tiers.data.map((tier) =>
            h('li', {}, h('span', {}, tier.name), h('span', { class: 'muted' }, this.t('tierFrom', { n: this._n(tier.threshold) }))),
          ),
        ),
        ...this._referral(data, null),
      ];
    }

    _shopperView(data) {
      const me = data.me;
      const status = me.tier_status;
      const next = status?.next_tier;
      const progress = status?.progress;
      const issued = this._issued;
      const redeemError = this._redeemError;
      return [
        me.first_name ? h('p', {}, this.t('hello', { name: me.first_name })) : null,
        h('p', { class: 'muted', id: `${this._id}-balance` }, this.t('balance')),
        h('p', { class: 'balance', 'aria-describedby': `${this._id}-balance` }, this.t('points', { n: this._n(me.points_balance) })),
        status?.current_tier ? h('p', {}, this.t('currentTier', { name: status.current_tier.name })) : null,
        next && progress.next_threshold
          ? [
              h('progress', {
                max: progress.next_threshold,
                value: Math.min(progress.value, progress.next_threshold),
                'aria-label': this.t('tierProgress', { name: next.name }),
              }),
              h('p', { class: 'muted' }, this.t('nextTier', { n: this._n(Math.ceil(progress.remaining || 0)), name: next.name })),
            ]
          : status?.current_tier
            ? h('p', { class: 'muted' }, this.t('topTier'))
            : null,
        issued
          ? h(
              'div',
              { class: 'code', id: `${this._id}-code`, tabindex: '-1', role: 'status', part: 'code' },
              h('p', {}, this.t('yourCode', { name: issued.name })),
              h('strong', {}, issued.code),
              ' ',
              this._copyButton(issued.code),
            )
          : null,
        redeemError
          ? h('p', { class: 'error', role: 'alert', tabindex: '-1', id: `${this._id}-redeem-error`, part: 'error' }, this.t('redeemError'))
          : null,
        ...this._section(
          'redeemable',
          me.redeemable_rewards.data.map((r) =>
            h(
              'li',
              {},
              h('span', {}, r.name, h('br'), h('span', { class: 'muted' }, this.t('points', { n: this._n(r.points_cost) }))),
              h(
                'button',
                {
                  type: 'button',
                  part: 'button',
                  'aria-label': this.t('redeemLabel', { name: r.name, n: this._n(r.points_cost) }),
                  onclick: (event) => this._redeem(r, event.currentTarget),
                },
                this.t('redeem'),
              ),
            ),
          ),
          this.t('noRedeemable'),
        ),
        ...this._section(
          'activity',
          me.activities.data.map((a) =>
            h(
              'li',
              {},
              h('span', {}, a.description, h('br'), h('span', { class: 'muted' }, this._date(a.occurred_at))),
              h('span', { class: a.points_change < 0 ? 'minus' : 'plus' }, `${a.points_change > 0 ? '+' : ''}${this._n(a.points_change)}`),
            ),
          ),
          this.t('noActivity'),
        ),
        ...this._earning(data),
        ...this._referral(data, me),
      ];
    }
  }

  customElements.define('loyalty-panel', LoyaltyPanel);
})();
