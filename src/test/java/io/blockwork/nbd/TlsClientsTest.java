package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.block.SyncIo;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 finding 6 with real clients: libnbd's {@code nbds://…?tls-certificates=DIR} (nbdinfo,
 * nbdcopy) and qemu's {@code tls-creds-x509}, against a TLS-only export of a server that also
 * verifies client certificates. Certificates are made for the test with openssl.
 */
@Tag("real-client")
class TlsClientsTest {

    private static final long SIZE = 16L << 20;
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @TempDir
    static Path certs;
    private static TestCertificates tls;
    @TempDir
    Path dir;

    private final NbdFixture nbd = new NbdFixture();
    private final Disk secret = Disk.memory("secret", SIZE, DiskConfig.DEFAULT);

    @BeforeAll
    static void certificates() {
        tls = TestCertificates.create(certs);
    }

    TlsClientsTest() {
        nbd.export(NbdExport.of("open", Disk.memory("open", 1 << 20, DiskConfig.DEFAULT)));
        nbd.export(NbdExport.of("secret", secret).requireTls(true));
        nbd.server.useTls(new NbdTls(tls.serverContext(true), true, false));
    }

    @AfterEach
    void stop() {
        nbd.close();
        assertThat(nbd.server.status().failures()).as("unexpected server failures").isZero();
    }

    private String nbds(String export, Path clientDir) {
        return "nbds://127.0.0.1:" + nbd.port() + "/" + export + "?tls-certificates=" + clientDir;
    }

    private Path randomImage() throws Exception {
        byte[] content = new byte[(int) SIZE];
        new Random(13).nextBytes(content);
        Path image = dir.resolve("source.raw");
        Files.write(image, content);
        return image;
    }

    @Test
    void nbdinfoAndNbdcopyUseTheExportOverTlsWithAClientCertificate() throws Exception {
        Object info = Json.at(Json.parseObject(ExternalTool.run(TIMEOUT, "nbdinfo", "--json",
                nbds("secret", tls.clientDir)).requireSuccess().stdout()), "exports", 0);
        assertThat(Json.number(info, "export-size")).isEqualTo(SIZE);

        Path image = randomImage();
        Path back = dir.resolve("back.raw");
        ExternalTool.run(TIMEOUT, "nbdcopy", image.toString(), nbds("secret", tls.clientDir)).requireSuccess();
        ExternalTool.run(TIMEOUT, "nbdcopy", nbds("secret", tls.clientDir), back.toString()).requireSuccess();
        assertThat(Files.mismatch(image, back)).isEqualTo(-1);
        byte[] onDisk = new byte[(int) SIZE];
        SyncIo.read(secret, 0, MemorySegment.ofArray(onDisk));
        assertThat(onDisk).isEqualTo(Files.readAllBytes(image));
    }

    @Test
    void qemuImgConvertsAndComparesThroughTlsCredsX509() throws Exception {
        Path image = randomImage();
        String creds = "tls-creds-x509,id=tls0,endpoint=client,dir=" + tls.clientDir;
        String target = "driver=nbd,server.type=inet,server.host=127.0.0.1,server.port=" + nbd.port()
                + ",export=secret,tls-creds=tls0";
        ExternalTool.run(TIMEOUT, "qemu-img", "convert", "-n", "-f", "raw", "--object", creds, image.toString(),
                "--target-image-opts", target).requireSuccess();
        assertThat(ExternalTool.run(TIMEOUT, "qemu-img", "compare", "--object", creds, "--image-opts",
                "driver=file,filename=" + image, "driver=raw,file." + target.replace(",", ",file."))
                .requireSuccess().stdout()).contains("Images are identical");
    }

    @Test
    void plainTextClientsAndClientsWithoutATrustedCertificateAreRefused() {
        ExternalTool.Result list = ExternalTool.run(TIMEOUT, "nbdinfo", "--list", "nbd://127.0.0.1:" + nbd.port());
        assertThat(list.requireSuccess().stdout()).contains("export=\"open\"").doesNotContain("secret");
        ExternalTool.Result tlsList = ExternalTool.run(TIMEOUT, "nbdinfo", "--list",
                "nbds://127.0.0.1:" + nbd.port() + "/?tls-certificates=" + tls.clientDir);
        assertThat(tlsList.requireSuccess().stdout()).contains("export=\"open\"").contains("export=\"secret\"");

        ExternalTool.Result plain = ExternalTool.run(TIMEOUT, "nbdinfo", "nbd://127.0.0.1:" + nbd.port() + "/secret");
        assertThat(plain.exitCode()).isNotZero(); // libnbd shows NBD_REP_ERR_TLS_REQD as "not supported"
        assertThat(plain.stderr()).contains("secret");
        for (Path refused : new Path[] {tls.anonymousClientDir, tls.rogueClientDir}) {
            ExternalTool.Result r = ExternalTool.run(TIMEOUT, "nbdinfo", nbds("secret", refused));
            assertThat(r.exitCode()).as("client from %s", refused.getFileName()).isNotZero();
        }
        try (RawNbdClient c = nbd.open("open", false)) { // and the server is fine
            assertThat(c.flush(1).error()).isZero();
        }
    }
}
