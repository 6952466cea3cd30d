#!/usr/bin/env python3
"""A real SMTP server on loopback for DoseTap's mail tests, built on aiosmtpd (PyPI): STARTTLS or implicit TLS with the
certificate it is given, AUTH PLAIN/LOGIN checked against one user, and refusals on request. Each message it accepts is
logged as one JSON line: the envelope, whether TLS was on and who authenticated, the message as received, and what
Python's own e-mail parser reads in it (headers, the plain and HTML parts decoded).

Usage: smtp-peer.py LOG [--cert PEM --key PEM] [--implicit-tls] [--no-starttls] [--auth USER:PASSWORD]
                        [--rcpt-reply 'CODE TEXT' ...] [--hold SECONDS] [--hold-first-rcpt SECONDS]
Prints {"port": N} once listening; exits when its stdin closes (the test process ended).
"""
import argparse, asyncio, email, email.policy, json, socket, ssl, sys

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


def main():
    options = argparse.ArgumentParser()
    options.add_argument("log")
    options.add_argument("--cert")
    options.add_argument("--key")
    options.add_argument("--implicit-tls", action="store_true")
    options.add_argument("--no-starttls", action="store_true")
    options.add_argument("--auth")
    options.add_argument("--rcpt-reply", action="append", default=[], help="answer each RCPT in turn with this, then accept")
    options.add_argument("--hold", type=float, default=0, help="wait this long before answering the final dot")
    options.add_argument("--hold-first-rcpt", type=float, default=0,
                         help="wait this long before answering the first RCPT, after writing LOG.held (a sender killed meanwhile sent nothing)")
    args = options.parse_args()

    context = None
    if args.cert:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
    replies = list(args.rcpt_reply)

    class Handler:
        held = False

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if args.hold_first_rcpt and not Handler.held:
                Handler.held = True
                open(args.log + ".held", "w").close()
                await asyncio.sleep(args.hold_first_rcpt)
            if replies:
                return replies.pop(0)
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            if args.hold:
                await asyncio.sleep(args.hold)
            entry = {
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "tls": session.ssl is not None or args.implicit_tls,
                "auth": session.auth_data.login.decode() if session.authenticated and session.auth_data else None,
                "data": envelope.original_content.decode("utf-8", "replace"),
            }
            message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
            entry.update({name.lower(): str(message[name]) for name in ("From", "To", "Subject", "Date", "Message-ID") if message[name]})
            entry["content_type"] = message.get_content_type()
            entry["defects"] = [str(defect) for defect in message.defects]
            for part in message.walk():
                if part.get_content_type() in ("text/plain", "text/html"):
                    entry[part.get_content_subtype()] = part.get_content()
            with open(args.log, "a") as log:
                log.write(json.dumps(entry) + "\n")
            return "250 Message accepted"

    def authenticator(server, session, envelope, mechanism, auth_data):
        if not isinstance(auth_data, LoginPassword) or not args.auth:
            return AuthResult(success=False, handled=False)
        user, password = args.auth.split(":", 1)
        # Not handled here: aiosmtpd answers 535 itself on a failure, and keeps the login as the session's auth_data.
        ok = auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    # aiosmtpd checks its own start by connecting to the port, so it is given a free one rather than 0.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = dict(hostname="127.0.0.1", port=port)
    if args.auth:
        settings.update(authenticator=authenticator, auth_required=True, auth_require_tls=True)
    if context and args.implicit_tls:
        settings.update(ssl_context=context)
    elif context and not args.no_starttls:
        settings.update(tls_context=context, require_starttls=True)
    controller = Controller(Handler(), **settings)
    controller.start()
    print(json.dumps({"port": port}), flush=True)
    sys.stdin.read()
    controller.stop()


if __name__ == "__main__":
    main()
