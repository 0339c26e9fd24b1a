package io.blockwork.e2e;

import static io.blockwork.e2e.ExportEndToEndTest.TOOL_TIMEOUT;
import static io.blockwork.e2e.ExportEndToEndTest.nbdPort;
import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.nbd.ExternalTool;
import io.blockwork.nbd.Json;
import io.blockwork.nbd.TestCertificates;
import io.blockwork.support.TempDataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 finding 6 as an operator sets it up: the service's NBD server gets its certificate from
 * a Spring SSL bundle of PEM files (the qemu {@code tls-creds-x509} layout), verifies client
 * certificates, and serves an export made over REST with {@code tls: required} and an allow-list
 * to real clients over {@code nbds://}; the export keeps its settings across a restart, and is
 * reported failed, not served in plain text, when the service comes back without TLS.
 */
@Tag("real-client")
class ExportTlsEndToEndTest {

    private static final int SIZE = 8 << 20;

    @TempDir
    Path dir;

    private static Map<String, String> tlsSettings(TestCertificates certs) {
        Path s = certs.serverDir;
        return Map.of(
                "spring.ssl.bundle.pem.nbd.keystore.certificate", "file:" + s.resolve("server-cert.pem"),
                "spring.ssl.bundle.pem.nbd.keystore.private-key", "file:" + s.resolve("server-key.pem"),
                "spring.ssl.bundle.pem.nbd.truststore.certificate", "file:" + s.resolve("ca-cert.pem"),
                "blockwork.nbd.tls.bundle", "nbd",
                "blockwork.nbd.tls.verify-clients", "true");
    }

    @Test
    void aTlsOnlyExportMadeOverRestServesCertifiedClientsAndKeepsItsSettings() throws Exception {
        TestCertificates certs = TestCertificates.create(dir.resolve("certs"));
        Path dataDir = TempDataDir.newDataDir();
        byte[] content = new byte[SIZE];
        new Random(613).nextBytes(content);
        Path image = dir.resolve("source.raw");
        Files.write(image, content);

        try (RunningService running = RunningService.start(dataDir, tlsSettings(certs))) {
            ServiceClient api = running.client();
            int port = nbdPort(api);
            assertThat(Json.at(Json.parseObject(api.get("/api/v1/system").body()), "nbd", "tls")).isEqualTo(true);
            assertThat(api.postJson("/api/v1/disks", "{\"name\":\"tls-mem\",\"type\":\"memory\",\"size\":\"8MiB\"}")
                    .statusCode()).isEqualTo(201);
            var created = api.postJson("/api/v1/exports", "{\"name\":\"vault\",\"device\":\"tls-mem\","
                    + "\"tls\":\"required\",\"allowedClients\":[\"127.0.0.0/8\",\"::1\"]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            Object export = Json.parseObject(created.body());
            String uri = "nbds://127.0.0.1:" + port + "/vault";
            assertThat(Json.at(export, "uri")).isEqualTo(uri);
            assertThat(Json.at(export, "tls")).isEqualTo("required");
            assertThat(Json.at(export, "allowedClients")).isEqualTo(List.of("127.0.0.0/8", "::1/128"));

            String withCert = uri + "?tls-certificates=" + certs.clientDir;
            Path back = dir.resolve("back.raw");
            ExternalTool.run(TOOL_TIMEOUT, "nbdcopy", image.toString(), withCert).requireSuccess();
            ExternalTool.run(TOOL_TIMEOUT, "nbdcopy", withCert, back.toString()).requireSuccess();
            assertThat(Files.mismatch(image, back)).isEqualTo(-1);
            assertThat(ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "nbd://127.0.0.1:" + port + "/vault").exitCode())
                    .as("plain text").isNotZero();
            assertThat(ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", uri + "?tls-certificates=" + certs.anonymousClientDir)
                    .exitCode()).as("no client certificate").isNotZero();

            Object health = Json.parseObject(api.get("/actuator/health").body());
            assertThat(Json.at(health, "components", "nbd", "status")).isEqualTo("UP");
            assertThat(Json.at(health, "components", "nbd", "details", "tls")).isEqualTo(true);
        }

        try (RunningService running = RunningService.start(dataDir, tlsSettings(certs))) {
            ServiceClient api = running.client();
            Object export = Json.parseObject(api.get("/api/v1/exports/vault").body());
            assertThat(Json.at(export, "state", "actual")).isEqualTo("active");
            assertThat(Json.at(export, "tls")).isEqualTo("required");
            assertThat(Json.at(export, "allowedClients")).isEqualTo(List.of("127.0.0.0/8", "::1/128"));
            String withCert = "nbds://127.0.0.1:" + nbdPort(api) + "/vault?tls-certificates=" + certs.clientDir;
            Object info = Json.at(Json.parseObject(ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "--json", withCert)
                    .requireSuccess().stdout()), "exports", 0);
            assertThat(Json.number(info, "export-size")).isEqualTo(SIZE);
        }

        try (RunningService running = RunningService.start(dataDir)) { // TLS no longer configured
            ServiceClient api = running.client();
            Object export = Json.parseObject(api.get("/api/v1/exports/vault").body());
            assertThat(Json.at(export, "state", "actual")).isEqualTo("failed");
            assertThat((String) Json.at(export, "state", "reason")).contains("TLS");
            assertThat(ExternalTool.run(TOOL_TIMEOUT, "nbdinfo", "--list", "nbd://127.0.0.1:" + nbdPort(api))
                    .stdout()).doesNotContain("vault");
        }
    }
}
