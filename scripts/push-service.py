#!/usr/bin/env python3
"""A Web Push service stand-in on loopback, an independent peer for DoseTap's tests.

It makes a real subscription per name (a P-256 key pair and a 16-byte auth secret, with `cryptography`), prints them
as PushSubscription JSON, then takes DoseTap's push requests. Each request is checked as a push service would:
the VAPID JWT (RFC 8292) is verified against the key in `k=` with `cryptography`, its `aud` must be this service's
origin and its `exp` within 24 hours; `TTL`, `Urgency`, `Topic` and `Content-Encoding: aes128gcm` must be present and
well formed; the body is decrypted with `http_ece` (RFC 8291/8188) and the subscription's private key. Each request is
answered from that subscription's list of statuses (201 once the list runs out) and written as one JSON line to the log.

Usage: push-service.py LOG NAME=STATUS,STATUS… [NAME=…]
The first line on stdout is {"port": N, "subscriptions": {NAME: PushSubscription JSON}}.
"""
import base64, json, os, re, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_vapid(header, origin):
    """Returns the JWT's claims if the signature, audience and expiry hold; raises otherwise."""
    match = re.fullmatch(r"vapid t=([A-Za-z0-9_\-\.]+), k=([A-Za-z0-9_\-]+)", header or "")
    if not match:
        raise ValueError("Authorization is not 'vapid t=…, k=…': %r" % header)
    token, key = match.groups()
    head, body, signature = token.split(".")
    if json.loads(unb64u(head)) != {"typ": "JWT", "alg": "ES256"}:
        raise ValueError("JWT header is not ES256")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64u(key))
    raw = unb64u(signature)
    if len(raw) != 64:
        raise ValueError("ES256 signature is not 64 bytes")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, (head + "." + body).encode(), ec.ECDSA(hashes.SHA256()))
    claims = json.loads(unb64u(body))
    if claims.get("aud") != origin:
        raise ValueError("aud %r is not %r" % (claims.get("aud"), origin))
    if not (time.time() < claims["exp"] <= time.time() + 24 * 3600 + 60):
        raise ValueError("exp is not within 24 hours")
    if not str(claims.get("sub", "")).startswith(("mailto:", "https://")):
        raise ValueError("sub is not a contact")
    return claims


def main():
    log_path, specs = sys.argv[1], sys.argv[2:]
    subscriptions, answers, lock = {}, {}, threading.Lock()
    for spec in specs:
        name, _, statuses = spec.partition("=")
        key = ec.generate_private_key(ec.SECP256R1())
        auth = os.urandom(16)
        public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        subscriptions[name] = {"key": key, "auth": auth, "public": public}
        answers[name] = [int(s) for s in statuses.split(",") if s]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            name = self.path.rsplit("/", 1)[-1]
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            entry = {"subscription": name, "ttl": self.headers.get("TTL"), "urgency": self.headers.get("Urgency"),
                     "topic": self.headers.get("Topic"), "encoding": self.headers.get("Content-Encoding")}
            try:
                subscription = subscriptions[name]
                entry["vapid"] = verify_vapid(self.headers.get("Authorization"), "http://127.0.0.1:%d" % port)
                if entry["encoding"] != "aes128gcm":
                    raise ValueError("Content-Encoding is %r" % entry["encoding"])
                if not re.fullmatch(r"[0-9]+", entry["ttl"] or "") or not re.fullmatch(r"[A-Za-z0-9_\-]{1,32}", entry["topic"] or ""):
                    raise ValueError("TTL or Topic is malformed")
                if entry["urgency"] not in ("very-low", "low", "normal", "high"):
                    raise ValueError("Urgency is malformed")
                plaintext = http_ece.decrypt(body, private_key=subscription["key"], auth_secret=subscription["auth"], version="aes128gcm")
                entry["payload"] = json.loads(plaintext)
                with lock:
                    queue = answers[name]
                    status = queue.pop(0) if queue else 201
            except (ValueError, KeyError, InvalidSignature, Exception) as error:  # noqa: B014 - any failure is a 400
                entry["error"] = "%s: %s" % (type(error).__name__, error)
                status = 400
            entry["status"] = status
            with lock, open(log_path, "a") as log:
                log.write(json.dumps(entry, sort_keys=True) + "\n")
            self.send_response(status)
            if status == 429:
                self.send_header("Retry-After", "0")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    listing = {name: {"endpoint": "http://127.0.0.1:%d/push/%s" % (port, name), "expirationTime": None,
                      "keys": {"p256dh": b64u(s["public"]), "auth": b64u(s["auth"])}} for name, s in subscriptions.items()}
    print(json.dumps({"port": port, "subscriptions": listing}), flush=True)
    # Ends with whoever started it: when its end of stdin closes (it exited, or crashed), so does this service.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
