package io.blockwork.nbd;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Throwaway X.509 certificates made with openssl for one test: a CA, a server certificate for
 * localhost and 127.0.0.1, a client certificate, and a client certificate from a second CA that
 * the server does not trust. The files follow the layout qemu's {@code tls-creds-x509} and
 * libnbd's {@code tls-certificates=DIR} read: {@code ca-cert.pem}, {@code server-cert.pem},
 * {@code server-key.pem}, {@code client-cert.pem}, {@code client-key.pem}.
 */
public final class TestCertificates {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String[] EC = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-noenc"};

    /** Server files and the CA (what the service's PEM bundle points at). */
    public final Path serverDir;
    /** A client's directory with a certificate signed by the server's CA. */
    public final Path clientDir;
    /** A client's directory with only the CA: it verifies the server but has no certificate to show. */
    public final Path anonymousClientDir;
    /** A client whose certificate comes from another CA, which the server does not trust. */
    public final Path rogueClientDir;

    private TestCertificates(Path root) {
        serverDir = root.resolve("server");
        clientDir = root.resolve("client");
        anonymousClientDir = root.resolve("anonymous");
        rogueClientDir = root.resolve("rogue");
    }

    /** Makes every certificate under {@code root} (about a second of openssl). */
    public static TestCertificates create(Path root) {
        TestCertificates c = new TestCertificates(root);
        try {
            for (Path d : new Path[] {c.serverDir, c.clientDir, c.anonymousClientDir, c.rogueClientDir}) {
                Files.createDirectories(d);
            }
            Path ca = root.resolve("ca");
            Path rogueCa = root.resolve("rogue-ca");
            Files.createDirectories(ca);
            Files.createDirectories(rogueCa);
            authority(ca, "Blockwork test CA");
            authority(rogueCa, "Somebody else's CA");
            leaf(ca, c.serverDir.resolve("server"), "localhost", "serverAuth",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1");
            leaf(ca, c.clientDir.resolve("client"), "blockwork-test-client", "clientAuth", null);
            leaf(rogueCa, c.rogueClientDir.resolve("client"), "intruder", "clientAuth", null);
            Path caCert = ca.resolve("ca-cert.pem");
            for (Path d : new Path[] {c.serverDir, c.clientDir, c.anonymousClientDir, c.rogueClientDir}) {
                Files.copy(caCert, d.resolve("ca-cert.pem"));
            }
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void authority(Path dir, String name) {
        openssl(dir, "req", "-x509", EC[0], EC[1], EC[2], EC[3], EC[4], "-keyout", "ca-key.pem", "-out", "ca-cert.pem",
                "-days", "2", "-subj", "/CN=" + name, "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    }

    /** {@code prefix-key.pem} and {@code prefix-cert.pem}, signed by the CA in {@code ca}. */
    private static void leaf(Path ca, Path prefix, String name, String usage, String extra) throws IOException {
        Path key = Path.of(prefix + "-key.pem");
        Path csr = Path.of(prefix + ".csr");
        Path ext = Path.of(prefix + ".ext");
        Files.writeString(ext, "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
                + "extendedKeyUsage=" + usage + "\n" + (extra == null ? "" : extra + "\n"));
        openssl(ca, "req", EC[0], EC[1], EC[2], EC[3], EC[4], "-keyout", key.toString(), "-out", csr.toString(),
                "-subj", "/CN=" + name);
        openssl(ca, "x509", "-req", "-in", csr.toString(), "-CA", "ca-cert.pem", "-CAkey", "ca-key.pem",
                "-CAcreateserial", "-out", prefix + "-cert.pem", "-days", "2", "-extfile", ext.toString());
    }

    private static void openssl(Path dir, String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = ExternalTool.require("openssl");
        System.arraycopy(args, 0, cmd, 1, args.length);
        String[] inDir = new String[cmd.length + 2];
        inDir[0] = "env";
        inDir[1] = "--chdir=" + dir;
        System.arraycopy(cmd, 0, inDir, 2, cmd.length);
        ExternalTool.run(TIMEOUT, inDir).requireSuccess();
    }

    /** The server's context; with {@code trustClients} it also trusts the CA that signed the client certificates. */
    public SSLContext serverContext(boolean trustClients) {
        return context(serverDir.resolve("server-key.pem"), serverDir.resolve("server-cert.pem"),
                trustClients ? serverDir.resolve("ca-cert.pem") : null);
    }

    /** A client's context from one of the client directories: trusts the test CA, shows a certificate if there is one. */
    public static SSLContext clientContext(Path dir) {
        Path key = dir.resolve("client-key.pem");
        return context(Files.exists(key) ? key : null, Files.exists(key) ? dir.resolve("client-cert.pem") : null,
                dir.resolve("ca-cert.pem"));
    }

    private static SSLContext context(Path key, Path cert, Path trusted) {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            KeyManagerFactory kmf = null;
            if (key != null) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("key", privateKey(key), new char[0], certificates(cert));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, new char[0]);
            }
            TrustManagerFactory tmf = null;
            if (trusted != null) {
                KeyStore ts = KeyStore.getInstance("PKCS12");
                ts.load(null, null);
                ts.setCertificateEntry("ca", certificates(trusted)[0]);
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(ts);
            }
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot load test certificates", e);
        }
    }

    private static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(text)));
    }

    private static Certificate[] certificates(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(Certificate[]::new);
        }
    }
}
