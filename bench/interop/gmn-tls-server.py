"""Serves GMN's WSGI application over HTTPS, asking for client certificates.

GMN reads the caller's certificate from the WSGI variable SSL_CLIENT_CERT (PEM), which Apache's mod_ssl sets with
"SSLOptions +ExportCertData" in GMN's own deployment; this front sets it the same way, from the TLS handshake.
Usage: gmn-tls-server.py PORT CERT KEY CA   (with DJANGO_SETTINGS_MODULE and PYTHONPATH naming GMN's settings)
"""
import socketserver
import ssl
import sys
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

import django
from django.core.wsgi import get_wsgi_application

MOUNT = "/mn"


class CertificateHandler(WSGIRequestHandler):
    def get_environ(self):
        environ = super().get_environ()
        environ["wsgi.url_scheme"] = "https"
        environ["HTTPS"] = "on"
        # GMN is mounted at /mn, as "WSGIScriptAlias /mn" does in GMN's Apache configuration.
        if environ["PATH_INFO"].startswith(MOUNT):
            environ["SCRIPT_NAME"] = MOUNT
            environ["PATH_INFO"] = environ["PATH_INFO"][len(MOUNT) :]
        der = self.connection.getpeercert(binary_form=True)
        if der:
            environ["SSL_CLIENT_CERT"] = ssl.DER_cert_to_PEM_cert(der)
        return environ

    def log_message(self, format, *args):
        sys.stderr.write("gmn-front %s\n" % (format % args))


class ThreadingTlsServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True

    def __init__(self, address, context):
        super().__init__(address, CertificateHandler)
        self.context = context

    def get_request(self):
        sock, address = self.socket.accept()
        return self.context.wrap_socket(sock, server_side=True), address


def main():
    port, cert, key, ca = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.load_verify_locations(ca)
    context.verify_mode = ssl.CERT_OPTIONAL
    django.setup()
    server = ThreadingTlsServer(("127.0.0.1", port), context)
    server.set_app(get_wsgi_application())
    print("gmn serving https://127.0.0.1:%d" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
