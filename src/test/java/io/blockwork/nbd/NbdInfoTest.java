package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Issue 6 acceptance 1 (nbdinfo reports size and flags) and the handshake seen by libnbd. */
@Tag("real-client")
class NbdInfoTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final NbdFixture nbd = new NbdFixture();

    @AfterEach
    void stop() {
        nbd.close();
    }

    @Test
    void nbdinfoReportsSizeFlagsAndBlockSizes() {
        Disk disk = Disk.memory("mem-info", 48L << 20, DiskConfig.DEFAULT.withLogicalBlockSize(4096));
        nbd.export(NbdExport.of("vol0", disk).withDescription("a memory disk"));

        Map<String, Object> doc = Json.parseObject(
                ExternalTool.run(TIMEOUT, "nbdinfo", "--json", nbd.uri("vol0")).requireSuccess().stdout());
        Object e = Json.at(doc, "exports", 0);

        assertThat(Json.at(doc, "protocol")).isEqualTo("newstyle-fixed");
        assertThat(Json.at(doc, "structured")).isEqualTo(true);
        assertThat(Json.at(e, "export-name")).isEqualTo("vol0");
        assertThat(Json.at(e, "description")).isEqualTo("a memory disk");
        assertThat(Json.number(e, "export-size")).isEqualTo(48L << 20);
        assertThat(Json.at(e, "is_read_only")).isEqualTo(false);
        assertThat(Json.at(e, "can_flush")).isEqualTo(true);
        assertThat(Json.at(e, "can_fua")).isEqualTo(true);
        assertThat(Json.at(e, "can_trim")).isEqualTo(true);
        assertThat(Json.at(e, "can_zero")).isEqualTo(true);
        assertThat(Json.at(e, "can_multi_conn")).isEqualTo(true);
        assertThat(Json.at(e, "can_fast_zero")).isEqualTo(false);
        assertThat(Json.at(e, "can_df")).isEqualTo(false);
        assertThat(Json.at(e, "can_cache")).isEqualTo(true);
        assertThat(Json.number(e, "block_size_minimum")).isEqualTo(4096);
        assertThat(Json.number(e, "block_size_preferred")).isEqualTo(4096);
        assertThat(Json.number(e, "block_size_maximum")).isEqualTo(32 << 20);
    }

    @Test
    void readOnlyExportAdvertisesReadOnlyAndNoWriteFeatures() {
        nbd.export(NbdExport.of("snap", Disk.memory("mem-ro", 8L << 20, DiskConfig.DEFAULT)).readOnly(true));

        Map<String, Object> doc = Json.parseObject(
                ExternalTool.run(TIMEOUT, "nbdinfo", "--json", nbd.uri("snap")).requireSuccess().stdout());
        Object e = Json.at(doc, "exports", 0);

        assertThat(Json.at(e, "is_read_only")).isEqualTo(true);
        assertThat(Json.at(e, "can_flush")).isEqualTo(true);
        assertThat(Json.at(e, "can_fua")).isEqualTo(false);
        assertThat(Json.at(e, "can_trim")).isEqualTo(false);
        assertThat(Json.at(e, "can_zero")).isEqualTo(false);
        assertThat(Json.number(e, "block_size_minimum")).isEqualTo(512);
    }

    @Test
    void listShowsEveryExportWithItsDescription() {
        nbd.export(NbdExport.of("b-vol", Disk.memory("m1", 1L << 20, DiskConfig.DEFAULT)).withDescription("second"));
        nbd.export(NbdExport.of("a-vol", Disk.memory("m2", 2L << 20, DiskConfig.DEFAULT)).withDescription("first"));

        Map<String, Object> doc = Json.parseObject(ExternalTool.run(TIMEOUT, "nbdinfo", "--list", "--json",
                "nbd://127.0.0.1:" + nbd.port()).requireSuccess().stdout());

        @SuppressWarnings("unchecked")
        List<Object> exports = (List<Object>) Json.at(doc, "exports");
        assertThat(exports).hasSize(2);
        assertThat(Json.at(exports.get(0), "export-name")).isEqualTo("a-vol");
        assertThat(Json.at(exports.get(0), "description")).isEqualTo("first");
        assertThat(Json.number(exports.get(0), "export-size")).isEqualTo(2L << 20);
        assertThat(Json.at(exports.get(1), "export-name")).isEqualTo("b-vol");
        assertThat(Json.number(exports.get(1), "export-size")).isEqualTo(1L << 20);
    }

    @Test
    void unknownExportIsRefusedAtTheHandshake() {
        nbd.export("vol0", Disk.memory("m", 1L << 20, DiskConfig.DEFAULT));

        ExternalTool.Result r = ExternalTool.run(TIMEOUT, "nbdinfo", nbd.uri("nope"));

        assertThat(r.exitCode()).isNotZero();
        // libnbd reports NBD_REP_ERR_UNKNOWN as ENOENT
        assertThat(r.stderr()).contains("server replied with error to opt_go request: No such file or directory");
    }
}
