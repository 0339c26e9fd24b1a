package io.blockwork.shared.problem;

import java.util.Arrays;
import java.util.Optional;

/**
 * Every kind of failure the API reports, in one place. Each constant is one problem type of
 * RFC 9457: its {@code type} URI is {@code /problems/<code>}, served with the description below.
 * A new feature adds its problems here, one line each; codes are stable once published.
 */
public enum Problem {
    VALIDATION_FAILED("validation-failed", 400, "Invalid request",
            "A parameter or field is missing or has a value the operation does not accept; `field` or `errors` say which."),
    MALFORMED_JSON("malformed-json", 400, "Malformed JSON",
            "The request body is not valid JSON, or is missing."),
    MISALIGNED("misaligned", 400, "Misaligned I/O",
            "An offset or length is not a multiple of the device's logical block size."),
    OUT_OF_RANGE("out-of-range", 400, "Outside the device",
            "The byte range does not lie inside the device."),
    UNAUTHENTICATED("unauthenticated", 401, "Authentication required",
            "Send HTTP Basic credentials of a Blockwork user."),
    TOO_MANY_SIGN_INS("too-many-sign-ins", 429, "Too many failed sign-ins",
            "This client sent wrong credentials too often in the last minute; wait the seconds Retry-After says. Other clients are not affected."),
    FORBIDDEN("forbidden", 403, "Not allowed",
            "The signed-in user's role does not allow this request (viewers may only read configuration and statistics)."),
    NOT_FOUND("not-found", 404, "Not found",
            "No object of that name, or no such path."),
    METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method not allowed",
            "The path exists but does not take this HTTP method; the Allow header lists the ones it takes."),
    NOT_ACCEPTABLE("not-acceptable", 406, "Not acceptable",
            "The response cannot be produced in a media type the Accept header allows."),
    NAME_TAKEN("name-taken", 409, "Name taken",
            "Another object already uses this name; block device names are unique across every kind of device. When it is an object of the same kind with other settings than the create or PUT asked for (`takenBy` the kind), `differs` lists the request fields that differ; nothing was changed."),
    DEVICE_BUSY("device-busy", 409, "Device busy",
            "Other objects use this device (see `holders`); remove them first, or delete with `?force=true` to remove its NBD exports along with it."),
    NOT_SUPPORTED("not-supported", 409, "Not supported here",
            "The object exists but its kind or configuration does not support this operation."),
    CONFLICT("conflict", 409, "Conflict",
            "The request conflicts with the current state of the object."),
    OTHER_NODE("other-node", 409, "Owned by another node",
            "The object belongs to another Blockwork node sharing this configuration database (`node` names it): this instance lists it read-only. Change it through that node's service."),
    // device-mapper
    INVALID_TABLE("invalid-table", 400, "Invalid device-mapper table",
            "The table was refused: `line` names the line of the text (or the target's position in a list) and `detail` says why. Nothing was changed."),
    INVALID_STATE("invalid-state", 409, "Not in this state",
            "The operation does not fit the object's current state (resume of an active device with no table loaded, suspend of a suspended one); `detail` says which."),
    MESSAGE_REFUSED("message-refused", 409, "Message refused",
            "No target covers the sector, or the target there does not take that message."),
    NO_WRITE_LOG("no-write-log", 409, "No write log",
            "The device holds no write log of the log-writes target (no log super at its start), or an entry of it is damaged; `detail` says which."),
    // pools and volumes
    INSUFFICIENT_SPACE("insufficient-space", 409, "Not enough free space",
            "The pool has fewer free extents than the volume needs; `detail` and `freeBytes`, `freeExtents`, `extentSizeBytes`, `neededExtents` say how much is free and how much was asked for. Nothing was allocated."),
    SHRINK_NOT_CONFIRMED("shrink-not-confirmed", 409, "Shrink not confirmed",
            "The new size is smaller than the volume: the data past the new end would be lost. Send the same request with `\"allowShrink\": true` to confirm."),
    POOL_NOT_EMPTY("pool-not-empty", 409, "Pool not empty",
            "The pool still has volumes (see `volumes`); delete them first."),
    HAS_SNAPSHOTS("has-snapshots", 409, "Volume has snapshots",
            "The volume has snapshots (see `snapshots`), which this change would break: delete them (or merge one) first, or delete the volume with `force=true`, which deletes its snapshots too."),
    // workloads and experiments
    DESTRUCTIVE_NOT_CONFIRMED("destructive-not-confirmed", 409, "Destructive workload not confirmed",
            "The workload writes to a device that holds data (a volume or snapshot, a device something else uses, a file disk), which it would overwrite; `reason` says why the device counts as holding data. Send the same request with `\"destructive\": true` to confirm. Read-only workloads are always allowed."),
    PAYLOAD_TOO_LARGE("payload-too-large", 413, "Payload too large",
            "The request is larger than the operation accepts (`limitBytes`): a request body of JSON or a table's text is at most 4 MiB, a read or write of device data at most 16 MiB. Nothing was done; split the transfer."),
    UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "Unsupported media type",
            "The request body's Content-Type is not one this operation reads."),
    SERVICE_BUSY("service-busy", 503, "Service busy",
            "Too many large transfers are in progress: their buffers would not fit the memory set aside for them. Nothing was done; retry after the Retry-After header's seconds."),
    REMOTE_UNAVAILABLE("remote-unavailable", 502, "Remote device unavailable",
            "The NBD server of an nbd disk could not be reached, or refused the export; `detail` says what it answered. Nothing was changed."),
    IO_ERROR("io-error", 500, "I/O error",
            "The device failed the request, like EIO from a real disk (a failing medium or injected fault)."),
    INTERNAL_ERROR("internal-error", 500, "Internal error",
            "Something unexpected failed inside Blockwork; the server log has details.");

    private final String code;
    private final int status;
    private final String title;
    private final String description;

    Problem(String code, int status, String title, String description) {
        this.code = code;
        this.status = status;
        this.title = title;
        this.description = description;
    }

    public String code() {
        return code;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String description() {
        return description;
    }

    /** The problem's {@code type}: a URI relative to the service, resolvable with GET. */
    public String type() {
        return "/problems/" + code;
    }

    public static Optional<Problem> byCode(String code) {
        return Arrays.stream(values()).filter(p -> p.code.equals(code)).findFirst();
    }
}
