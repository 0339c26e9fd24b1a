package io.blockwork.nbd;

import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * TLS for the NBD server (NBD_OPT_STARTTLS with X.509 certificates, what qemu's
 * {@code tls-creds-x509} and libnbd's {@code nbds://} URIs speak).
 *
 * @param context the server's certificate and key, and, to verify clients, the CAs it trusts
 * @param verifyClients require every TLS client to present a certificate signed by a CA the
 *                      context trusts (qemu's {@code verify-peer}); without it anyone may start TLS,
 *                      and TLS only encrypts and proves the server to its clients
 * @param requiredForAll the spec's FORCEDTLS mode: until TLS is up every option but STARTTLS and
 *                       ABORT is refused with NBD_REP_ERR_TLS_REQD. Without it (SELECTIVETLS) only
 *                       exports marked {@link NbdExport#tlsRequired()} insist on TLS
 */
public record NbdTls(SSLContext context, boolean verifyClients, boolean requiredForAll) {

    public NbdTls {
        Objects.requireNonNull(context, "context");
    }
}
