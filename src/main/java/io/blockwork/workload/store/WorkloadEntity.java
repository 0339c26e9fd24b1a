package io.blockwork.workload.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import java.time.Instant;

/** One workload run (table {@code workloads}, see V15__workloads.sql). */
@Entity
@Table(name = "workloads")
public class WorkloadEntity extends RunEntity {

    @Column(name = "device_name", nullable = false, length = 64)
    private String deviceName;

    @Column(nullable = false, length = 16)
    private String rw;

    @Column(nullable = false, length = 100000)
    private String spec;

    protected WorkloadEntity() {
        // for JPA
    }

    public WorkloadEntity(String deviceName, String rw, String spec, Instant startedAt) {
        super(startedAt);
        this.deviceName = deviceName;
        this.rw = rw;
        this.spec = spec;
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
}
