package io.blockwork.persistence.workload;

import io.blockwork.persistence.node.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** One workload run (table {@code workloads}, see V15__workloads.sql). */
@Entity
@Table(name = "workloads")
public class WorkloadRecord extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(name = "device_name", nullable = false, length = 64)
    private String deviceName;

    @Column(nullable = false, length = 16)
    private String rw;

    @Column(nullable = false, length = 100000)
    private String spec;

    @Column(nullable = false, length = 16)
    private String state;

    @Column(name = "started_at", nullable = false)
    private Instant startedAt;

    @Column(name = "ended_at")
    private Instant endedAt;

    @Column(length = 1000000)
    private String result;

    @Column(length = 4096)
    private String error;

    protected WorkloadRecord() {
        // for JPA
    }

    public WorkloadRecord(String deviceName, String rw, String spec, Instant startedAt) {
        this.deviceName = deviceName;
        this.rw = rw;
        this.spec = spec;
        this.state = RunState.RUNNING.label();
        this.startedAt = startedAt;
    }

    /** Records how the run ended. */
    public void end(RunState how, Instant at, String resultJson, String errorText) {
        this.state = how.label();
        this.endedAt = at;
        this.result = resultJson;
        this.error = errorText == null || errorText.length() <= 4096 ? errorText : errorText.substring(0, 4096);
    }

    public Long getId() {
        return id;
    }

    public String getDeviceName() {
        return deviceName;
    }

    public String getRw() {
        return rw;
    }

    public String getSpec() {
        return spec;
    }

    public RunState getState() {
        return RunState.of(state);
    }

    public Instant getStartedAt() {
        return startedAt;
    }

    public Instant getEndedAt() {
        return endedAt;
    }

    public String getResult() {
        return result;
    }

    public String getError() {
        return error;
    }
}
