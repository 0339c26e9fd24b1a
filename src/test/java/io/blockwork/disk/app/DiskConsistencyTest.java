package io.blockwork.disk.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blockwork.BlockworkProperties;
import io.blockwork.engine.block.FlushMerging;
import io.blockwork.engine.disk.CacheMode;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.DiskConfig;
import io.blockwork.engine.disk.LatencyModel;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import io.blockwork.support.AppTest;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.MockMvc;

/** "A management operation either changes both the database and the live engine, or neither." */
@AppTest
class DiskConsistencyTest {

    @Autowired
    MockMvc mvc;
    @Autowired
    DiskService disks;
    @Autowired
    DeviceRegistry registry;
    @Autowired
    ManagementOperations management;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    BlockworkProperties properties;

    /**
     * A row the registry does not know about (as if written behind the service's back) makes the
     * save fail after the engine object was built and registered: both must be undone.
     */
    @Test
    void aFailingSaveLeavesNoDeviceAndNoImageBehind() throws Exception {
        jdbc.update("INSERT INTO disks (name, type, size_bytes, logical_block_size, cache_mode, read_latency_nanos,"
                + " write_latency_nanos, flush_latency_nanos, jitter_nanos, queue_depth, flush_strategy, created_at)"
                + " VALUES ('cs-ghost', 'memory', 1048576, 512, 'writethrough', 0, 0, 0, 0, 0, 'merged', CURRENT_TIMESTAMP)");
        try {
            // The service itself: the API's create-or-confirm reads the ghost row first and answers
            // name-taken without building anything, so only a create that races past it meets this.
            assertThatThrownBy(() -> disks.create(new DiskSpec("cs-ghost", DiskType.FILE, 1L << 20, 512,
                    CacheMode.WRITETHROUGH, LatencyModel.NONE, 0, FlushMerging.OFF)))
                    .isInstanceOfSatisfying(ProblemException.class, e -> assertThat(e.problem()).isEqualTo(Problem.CONFLICT));
            assertThat(registry.find("cs-ghost")).isEmpty();
            assertThat(Files.exists(properties.diskDir().resolve("cs-ghost.img"))).isFalse();
        } finally {
            jdbc.update("DELETE FROM disks WHERE name = 'cs-ghost'");
        }
    }

    @Test
    void aRollbackUndoesEngineChangesNewestFirst() {
        Disk disk = Disk.memory("cs-rollback", 1 << 20, DiskConfig.DEFAULT);
        StringBuilder order = new StringBuilder();
        assertThatThrownBy(() -> management.run(changes -> {
            registry.register("cs-rollback", DeviceKind.DISK, disk);
            changes.undoOnRollback(() -> order.append("first "));
            changes.undoOnRollback(() -> {
                order.append("second ");
                registry.unregister("cs-rollback");
            });
            changes.afterCommit(() -> order.append("committed "));
            throw new IllegalStateException("the database said no");
        })).hasMessage("the database said no");
        assertThat(order.toString()).isEqualTo("second first ");
        assertThat(registry.find("cs-rollback")).isEmpty();
    }

    @Test
    void aCommitRunsTheAfterCommitStepsOnly() {
        StringBuilder order = new StringBuilder();
        management.run(changes -> {
            changes.undoOnRollback(() -> order.append("undone "));
            changes.afterCommit(() -> order.append("committed "));
        });
        assertThat(order.toString()).isEqualTo("committed ");
    }
}
