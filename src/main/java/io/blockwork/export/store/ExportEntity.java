package io.blockwork.export.store;

import io.blockwork.shared.node.store.NodeOwned;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * One NBD export (table {@code exports}, see V4__exports.sql and V13_20__export_access.sql): a
 * block device offered to NBD clients under a name, and who may reach it. The device's kind is
 * kept so start-up assembly can order the export after its device without asking every feature.
 */
@Entity
@Table(name = "exports")
public class ExportEntity extends NodeOwned {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String name;

    @Column(name = "device_name", nullable = false, length = 64)
    private String deviceName;

    @Column(name = "device_kind", nullable = false, length = 16)
    private String deviceKind;

    @Column(name = "read_only", nullable = false)
    private boolean readOnly;

    @Column(nullable = false, length = 4096)
    private String description;

    /** Writes a device that arrays or mapped devices hold, as they allow (V13_5__export_raw.sql). */
    @Column(nullable = false)
    private boolean raw;

    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "tls_required", nullable = false)
    private boolean tlsRequired;

    /** Canonical CIDR blocks separated by single spaces; null for any client. */
    @Column(name = "allowed_clients", length = 4096)
    private String allowedClients;

    protected ExportEntity() {
        // for JPA
    }

    /** @param allowedClients canonical CIDR blocks, or null for any client */
    public ExportEntity(String name, String deviceName, String deviceKind, boolean readOnly, boolean raw, String description,
                        Instant createdAt, boolean tlsRequired, List<String> allowedClients) {
        this.name = name;
        this.deviceName = deviceName;
        this.deviceKind = deviceKind;
        this.readOnly = readOnly;
        this.raw = raw;
        this.description = description;
        this.createdAt = createdAt;
        this.tlsRequired = tlsRequired;
        this.allowedClients = allowedClients == null ? null : String.join(" ", allowedClients);
    }

    public Long getId() {
        return id;
    }

    public String getName() {
        return name;
    }

    public String getDeviceName() {
        return deviceName;
    }

    public String getDeviceKind() {
        return deviceKind;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public boolean isRaw() {
        return raw;
    }

    public String getDescription() {
        return description;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public boolean isTlsRequired() {
        return tlsRequired;
    }

    /** The CIDR blocks clients must come from, or null for any client. */
    public List<String> getAllowedClients() {
        return allowedClients == null ? null : Arrays.asList(allowedClients.split(" "));
    }
}
