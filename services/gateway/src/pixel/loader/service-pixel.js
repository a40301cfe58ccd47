/*
 * The Holdfast browser pixel, served minified at GET /pixel/v1/service-pixel.js. Plain ES2017 for
 * every current browser; no build step but the gateway's minification. The merchant's snippet:
 *
 *   <script async src="https://<gateway>/pixel/v1/service-pixel.js" data-key="pk_..."
 *           data-service-consent="required"></script>
 *
 * - Posts batches (at most 50 events and 48 KB each) to /pixel/collect on the script's own origin.
 * - data-service-consent="required": nothing is sent, and nothing is stored in the browser, until the
 *   site's consent manager calls holdfast.consent(true); holdfast.consent(false) discards and stops.
 * - Global Privacy Control (navigator.globalPrivacyControl === true): nothing is sent or stored, ever.
 * - holdfast.track(type, props) for single-page-app route changes and cart steps.
 * See docs/pixel.md.
 */
(function (w, d) {
  'use strict';
  var previous = w.holdfast;
  if (previous && previous.loaded) return; // the snippet was pasted twice: the first copy runs

  var noop = function () {};
  var api = { loaded: true, track: noop, consent: noop, flush: noop };
  w.holdfast = api;

  var script = d.currentScript;
  if (!script) {
    var tags = d.getElementsByTagName('script');
    for (var t = tags.length - 1; t >= 0 && !script; t--)
      if (/\/pixel\/v1\/service-pixel\.js/.test(tags[t].src)) script = tags[t];
  }
  var key = script && script.getAttribute('data-key');
  if (!key || !script.src || w.navigator.globalPrivacyControl === true) return;

  var MAX_EVENTS = 50;
  var MAX_BYTES = 48 * 1024;
  var MAX_PENDING = 200; // events kept in memory while consent is pending
  var FLUSH_MS = 1000;
  var SESSION_MS = 30 * 60 * 1000;
  var TYPES = { page_view: 1, product_view: 1, search: 1, add_to_cart: 1, checkout_started: 1 };
  var TEXT = {
    url_path: 2000,
    page_title: 512,
    referrer_host: 256,
    product_external_id: 128,
    collection: 256,
    search: 512,
  };
  var COUNTS = { price_cents: 1, dwell_ms: 1 };
  var UTM = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'];

  var endpoint = new URL('/pixel/collect', script.src).href;
  // 'not_required', 'pending' (waiting for the consent manager), 'granted' or 'denied'.
  var consent = script.getAttribute('data-service-consent') === 'required' ? 'pending' : 'not_required';
  var queue = [];
  var timer = null;
  var encoder = w.TextEncoder ? new w.TextEncoder() : null;

  var landingUtm = {};
  var hasUtm = false;
  var params = new URLSearchParams(w.location.search);
  for (var u = 0; u < UTM.length; u++) {
    var value = params.get(UTM[u]);
    if (value) {
      landingUtm[UTM[u]] = value.slice(0, 256);
      hasUtm = true;
    }
  }

  function uuid() {
    var c = w.crypto;
    if (c && c.randomUUID) return c.randomUUID();
    var b = new Uint8Array(16);
    if (c && c.getRandomValues) c.getRandomValues(b);
    else for (var i = 0; i < 16; i++) b[i] = (Math.random() * 256) | 0;
    b[6] = (b[6] & 15) | 64;
    b[8] = (b[8] & 63) | 128;
    var h = '';
    for (var j = 0; j < 16; j++)
      h += (b[j] + 256).toString(16).slice(1) + ([3, 5, 7, 9].indexOf(j) >= 0 ? '-' : '');
    return h;
  }

  // localStorage first; a cookie when storage is blocked (Safari private mode, sandboxed frames).
  function load(name) {
    try {
      var v = w.localStorage.getItem(name);
      if (v !== null) return v;
    } catch (e) {}
    var m = d.cookie.match(new RegExp('(?:^|; )' + name + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : null;
  }

  function save(name, v, days) {
    try {
      w.localStorage.setItem(name, v);
      return;
    } catch (e) {}
    d.cookie =
      name +
      '=' +
      encodeURIComponent(v) +
      '; max-age=' +
      days * 86400 +
      '; path=/; SameSite=Lax' +
      (w.location.protocol === 'https:' ? '; Secure' : '');
  }

  // The visitor's ids, created on first use: only once events may be sent (after consent).
  function identity() {
    var aid = load('hf_aid');
    if (!aid || aid.length > 128) save('hf_aid', (aid = uuid()), 365);
    var now = Date.now();
    var s = null;
    try {
      s = JSON.parse(load('hf_session') || 'null');
    } catch (e) {}
    var fresh = !s || typeof s.id !== 'string' || now - s.t > SESSION_MS;
    if (fresh || (hasUtm && (s.utm || {}).utm_content !== landingUtm.utm_content))
      s = { id: uuid(), utm: hasUtm ? landingUtm : {} };
    hasUtm = false; // the landing URL starts at most one session
    s.t = now;
    save('hf_session', JSON.stringify(s), 1);
    return { aid: aid, sid: s.id, utm: s.utm || {} };
  }

  function size(text) {
    return encoder ? encoder.encode(text).length : text.length * 3;
  }

  function track(type, props) {
    if (!TYPES[type] || consent === 'denied') return;
    var e = {
      event_id: uuid(),
      event_type: type,
      occurred_at: new Date().toISOString(),
      url_path: w.location.pathname,
      page_title: d.title || null,
      raw: {},
    };
    props = props || {};
    for (var k in props) {
      if (!Object.prototype.hasOwnProperty.call(props, k)) continue;
      var v = props[k];
      if (TEXT[k]) e[k] = v == null ? null : String(v);
      else if (COUNTS[k]) e[k] = typeof v === 'number' && v >= 0 && isFinite(v) ? Math.round(v) : null;
      else if (v !== undefined) e.raw[k] = v;
    }
    for (var f in TEXT) if (typeof e[f] === 'string') e[f] = e[f].slice(0, TEXT[f]);
    queue.push(e);
    if (consent === 'pending') {
      if (queue.length > MAX_PENDING) queue.shift();
    } else if (queue.length >= MAX_EVENTS) flush();
    else if (!timer) timer = setTimeout(flush, FLUSH_MS);
  }

  function post(body, hidden) {
    // On the way out a beacon survives the page; as text/plain it needs no CORS preflight.
    if (hidden && w.navigator.sendBeacon) {
      try {
        if (w.navigator.sendBeacon(endpoint, new Blob([body], { type: 'text/plain;charset=UTF-8' }))) return;
      } catch (e) {}
    }
    try {
      w.fetch(endpoint, {
        method: 'POST',
        body: body,
        headers: { 'Content-Type': 'application/json' },
        credentials: 'omit',
        keepalive: !!hidden,
      }).catch(noop);
    } catch (e) {}
  }

  function flush(hidden) {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!queue.length || (consent !== 'granted' && consent !== 'not_required')) return;
    var id = identity();
    var head = '{"key":' + JSON.stringify(key) + ',"events":[';
    var room = MAX_BYTES - size(head) - 2;
    var batch = [];
    var used = 0;
    var events = queue;
    queue = [];
    for (var i = 0; i < events.length; i++) {
      var e = events[i];
      var raw = {};
      for (var r in id.utm) raw[r] = id.utm[r];
      for (r in e.raw) raw[r] = e.raw[r];
      delete e.raw;
      for (r in raw) {
        e.raw_props = raw;
        break;
      }
      e.anonymous_id = id.aid;
      e.session_id = id.sid;
      e.consent_state = consent;
      var json = JSON.stringify(e);
      var n = size(json);
      if (n > room) continue; // larger than any allowed body: it could never be accepted
      if (batch.length && (batch.length >= MAX_EVENTS || used + n + batch.length > room)) {
        post(head + batch.join(',') + ']}', hidden);
        batch = [];
        used = 0;
      }
      batch.push(json);
      used += n;
    }
    if (batch.length) post(head + batch.join(',') + ']}', hidden);
  }

  api.track = track;
  api.flush = function () {
    flush(false);
  };
  api.consent = function (granted) {
    if (granted) {
      consent = 'granted';
      flush(false);
    } else {
      consent = 'denied';
      queue = [];
    }
  };

  var leave = function () {
    flush(true);
  };
  d.addEventListener('visibilitychange', function () {
    if (d.visibilityState === 'hidden') leave();
  });
  w.addEventListener('pagehide', leave);

  var referrer = null;
  try {
    referrer = d.referrer ? new URL(d.referrer).host : null;
  } catch (e) {}
  track('page_view', { referrer_host: referrer });

  // Calls queued by a stub before the script arrived: window.holdfast = {q: [['consent', true], ...]}.
  var early = (previous && previous.q) || [];
  for (var q = 0; q < early.length; q++) {
    var call = early[q];
    if (call && typeof api[call[0]] === 'function') api[call[0]].apply(api, [].slice.call(call, 1));
  }
})(window, document);
