package io.blockwork.shared;

import static io.blockwork.support.Listings.named;
import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.createDisk;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.viewer;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasLength;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.patch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.BlockworkProperties;
import io.blockwork.shared.json.BodySizeLimit;
import io.blockwork.support.AppTest;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Acceptance 5 of the walking skeleton: each kind of bad input gets its status and problem code,
 * and leaves every disk and device exactly as it was (compared as the API shows them).
 */
@AppTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadInputTest {

    private static final String DISK = "bi-disk";
    private static final byte[] PATTERN = pattern();

    @Autowired
    MockMvc mvc;
    @Autowired
    BlockworkProperties properties;

    private String before;

    @BeforeAll
    void createDiskWithKnownData() throws Exception {
        mvc.perform(memoryDisk(DISK, "1MiB")).andExpect(status().isCreated());
        mvc.perform(writeData(DISK, 0, PATTERN)).andExpect(status().isNoContent());
    }

    @BeforeEach
    void rememberState() throws Exception {
        before = everything();
    }

    /** This class's disks and devices as the API shows them, counters included. */
    private String everything() throws Exception {
        return named(mvc, "/api/v1/disks", "bi-") + named(mvc, "/api/v1/devices", "bi-");
    }

    private void assertNothingChanged() throws Exception {
        assertThat(everything()).isEqualTo(before);
    }

    @Test
    void unalignedOffset() throws Exception {
        mvc.perform(writeData(DISK, 100, new byte[512]))
                .andExpect(problem(400, "misaligned")).andExpect(jsonPath("$.field").value("offset"));
        mvc.perform(readData(DISK, 100, 512)).andExpect(problem(400, "misaligned"));
        assertNothingChanged();
    }

    @Test
    void unalignedLength() throws Exception {
        mvc.perform(writeData(DISK, 0, new byte[700]))
                .andExpect(problem(400, "misaligned")).andExpect(jsonPath("$.field").value("length"));
        assertNothingChanged();
    }

    @Test
    void outOfRangeOffset() throws Exception {
        mvc.perform(writeData(DISK, 1 << 20, new byte[512]))
                .andExpect(problem(400, "out-of-range")).andExpect(jsonPath("$.sizeBytes").value(1 << 20));
        mvc.perform(readData(DISK, (1 << 20) - 512, 1024)).andExpect(problem(400, "out-of-range"));
        mvc.perform(post("/api/v1/devices/{n}/discard", DISK).with(admin()).param("offset", "2097152")
                .param("length", "512")).andExpect(problem(400, "out-of-range"));
        assertNothingChanged();
    }

    @Test
    void unknownDevice() throws Exception {
        mvc.perform(readData("bi-nothing", 0, 512)).andExpect(problem(404, "not-found"));
        mvc.perform(writeData("bi-nothing", 0, new byte[512])).andExpect(problem(404, "not-found"));
        mvc.perform(post("/api/v1/devices/bi-nothing/flush").with(admin())).andExpect(problem(404, "not-found"));
        assertNothingChanged();
    }

    @Test
    void badName() throws Exception {
        mvc.perform(memoryDisk("Bad Name!", "1MiB"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("name"));
        mvc.perform(memoryDisk("-starts-with-dash", "1MiB")).andExpect(problem(400, "validation-failed"));
        mvc.perform(memoryDisk("a".repeat(65), "1MiB")).andExpect(problem(400, "validation-failed"));
        assertNothingChanged();
    }

    @Test
    void duplicateName() throws Exception {
        mvc.perform(createDisk("{\"name\":\"" + DISK + "\",\"type\":\"file\",\"size\":\"2MiB\"}"))
                .andExpect(problem(409, "name-taken")).andExpect(jsonPath("$.field").value("name"));
        assertNothingChanged();
    }

    @Test
    void malformedJson() throws Exception {
        mvc.perform(createDisk("{\"name\":\"bi-broken\",")).andExpect(problem(400, "malformed-json"));
        mvc.perform(createDisk("")).andExpect(problem(400, "malformed-json"));
        assertNothingChanged();
    }

    @Test
    void badSize() throws Exception {
        mvc.perform(createDisk("{\"name\":\"bi-size\",\"type\":\"memory\",\"size\":\"1.3KiB\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        mvc.perform(createDisk("{\"name\":\"bi-size\",\"type\":\"memory\",\"size\":1000}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        mvc.perform(createDisk("{\"name\":\"bi-size\",\"type\":\"memory\",\"size\":\"5PB\"}"))
                .andExpect(problem(400, "validation-failed"));
        assertNothingChanged();
    }

    /** Strict JSON: a key twice, or a value of the wrong JSON type, is refused, not guessed at. */
    @Test
    void duplicateKeysAndCoercedValues() throws Exception {
        mvc.perform(createDisk("{\"name\":\"bi-dup\",\"type\":\"memory\",\"size\":\"1MiB\",\"name\":\"bi-dup2\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("name"));
        mvc.perform(createDisk("{\"name\":123,\"type\":\"memory\",\"size\":\"1MiB\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("name"));
        mvc.perform(createDisk("{\"name\":true,\"type\":\"memory\",\"size\":\"1MiB\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("name"));
        mvc.perform(createDisk("{\"name\":\"bi-coerce\",\"type\":\"memory\",\"size\":\"1MiB\",\"queueDepth\":\"4\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("queueDepth"));
        mvc.perform(createDisk("{\"name\":\"bi-coerce\",\"type\":\"memory\",\"size\":\"1MiB\",\"queueDepth\":4.5}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("queueDepth"));
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"name\":\"bi-md\",\"level\":\"raid1\",\"members\":[null,\"" + DISK + "\"]}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("members[0]"));
        mvc.perform(post("/api/v1/arrays").with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"name\":\"bi-md\",\"level\":\"raid1\",\"members\":[\"" + DISK + "\"],"
                                + "\"spares\":[null]}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("spares[0]"));
        assertNothingChanged();
    }

    /** A number too large for its field is the field's fault, not broken JSON. */
    @Test
    void integerOutOfRange() throws Exception {
        mvc.perform(createDisk("{\"name\":\"bi-int\",\"type\":\"memory\",\"size\":\"1MiB\",\"queueDepth\":99999999999}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("queueDepth"))
                .andExpect(jsonPath("$.detail").value(containsString("99999999999")));
        mvc.perform(patch("/api/v1/disks/{n}", DISK).with(admin()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"latency\":{\"read\":\"1ms\"},\"queueDepth\":-99999999999}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("queueDepth"));
        assertNothingChanged();
    }

    /**
     * Issue 30: a number too large to be a size, however it is written, is a bad size naming the
     * field; `1e999999999` answered a raw Java message, a long digit string was parsed in full.
     */
    @Test
    void hugeNumbersAreBadSizesNamingTheField() throws Exception {
        String[] sizes = {"1e999999999", "-1e999999999", "1E400", "9".repeat(999), "\"" + "9".repeat(100_000) + "MiB\"",
            "\"1." + "0".repeat(100_000) + "1KiB\""};
        for (String size : sizes) {
            mvc.perform(createDisk("{\"name\":\"bi-huge\",\"type\":\"memory\",\"size\":" + size + "}"))
                    .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"))
                    .andExpect(jsonPath("$.detail").value(not(containsString("Character"))))
                    .andExpect(jsonPath("$.detail").value(hasLength(lessThan(200))));
        }
        // longer than the parser takes: refused by it, before any field sees it
        mvc.perform(createDisk("{\"name\":\"bi-huge\",\"type\":\"memory\",\"size\":" + "9".repeat(5_000) + "}"))
                .andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.detail").value("a number in the body has more digits than any value takes (at most 1000)"));
        assertNothingChanged();
    }

    /** Valid JSON of the wrong shape is refused as an invalid request, without naming the server's classes. */
    @Test
    void bodyThatIsNotAnObject() throws Exception {
        for (String body : new String[] {"[]", "\"bi-disk\"", "42"}) {
            mvc.perform(createDisk(body)).andExpect(problem(400, "validation-failed"))
                    .andExpect(jsonPath("$.detail").value("the body must be a JSON object"));
        }
        assertNothingChanged();
    }

    /** A negative length is called negative, and an offset near the largest long gives no wrapped-round range. */
    @Test
    void negativeLengthAndOverflowingRange() throws Exception {
        mvc.perform(readData(DISK, 0, -512)).andExpect(problem(400, "validation-failed"))
                .andExpect(jsonPath("$.field").value("length"))
                .andExpect(jsonPath("$.detail").value("length must be positive, not -512"));
        mvc.perform(readData(DISK, Long.MAX_VALUE - 511, 1024)).andExpect(problem(400, "out-of-range"))
                .andExpect(jsonPath("$.detail").value("1024 bytes at offset " + (Long.MAX_VALUE - 511)
                        + " are not inside " + DISK + ", which has 1048576 bytes"));
        assertNothingChanged();
    }

    /** Sizes up to the largest a device may have are taken, and cost nothing until written; larger ones are refused. */
    @Test
    void hugeSizes() throws Exception {
        for (String size : new String[] {"1048576TiB", "2097152TiB", "8388607TiB"}) {
            mvc.perform(createDisk("{\"name\":\"bi-huge\",\"type\":\"memory\",\"size\":\"" + size + "\"}"))
                    .andExpect(status().isCreated());
            mvc.perform(delete("/api/v1/disks/bi-huge").with(admin())).andExpect(status().isNoContent());
        }
        mvc.perform(createDisk("{\"name\":\"bi-huge\",\"type\":\"memory\",\"size\":\"8388608TiB\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        mvc.perform(createDisk("{\"name\":\"bi-huge\",\"type\":\"memory\",\"size\":9223372036854775807}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        mvc.perform(createDisk("{\"name\":\"bi-huge\",\"type\":\"memory\",\"size\":9223372036854775808}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
        assertNothingChanged();
    }

    /**
     * A file disk larger than the file system can hold (ext4: 16 TiB) is refused as a bad size and
     * leaves no image behind; where the file system takes it, it is created sparse and deleted.
     */
    @Test
    void fileDiskLargerThanTheFileSystemHolds() throws Exception {
        for (String size : new String[] {"100TiB", "8388607TiB"}) {
            int status = mvc.perform(createDisk("{\"name\":\"bi-bigfile\",\"type\":\"file\",\"size\":\"" + size
                    + "\"}")).andReturn().getResponse().getStatus();
            assertThat(status).as(size).isIn(201, 400);
            if (status == 400) {
                mvc.perform(createDisk("{\"name\":\"bi-bigfile\",\"type\":\"file\",\"size\":\"" + size + "\"}"))
                        .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("size"));
            } else {
                mvc.perform(delete("/api/v1/disks/bi-bigfile").with(admin())).andExpect(status().isNoContent());
            }
            assertThat(properties.diskDir().resolve("bi-bigfile.img")).doesNotExist();
            mvc.perform(createDisk("{\"name\":\"bi-bigfile\",\"type\":\"file\",\"size\":\"1MiB\"}"))
                    .andExpect(status().isCreated());
            mvc.perform(delete("/api/v1/disks/bi-bigfile").with(admin())).andExpect(status().isNoContent());
        }
        assertNothingChanged();
    }

    @Test
    void unknownField() throws Exception {
        mvc.perform(createDisk("{\"name\":\"bi-field\",\"type\":\"memory\",\"sise\":\"1MiB\"}"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("sise"));
        assertNothingChanged();
    }

    @Test
    void missingCredentials() throws Exception {
        mvc.perform(post("/api/v1/disks").contentType(MediaType.APPLICATION_JSON)
                        .content("{\"name\":\"bi-anon\",\"type\":\"memory\",\"size\":\"1MiB\"}"))
                .andExpect(problem(401, "unauthenticated"))
                .andExpect(header().string("WWW-Authenticate", "Basic realm=\"blockwork\""));
        mvc.perform(get("/api/v1/devices")).andExpect(problem(401, "unauthenticated"));
        assertNothingChanged();
    }

    @Test
    void wrongPassword() throws Exception {
        mvc.perform(get("/api/v1/devices").with(httpBasic("admin", "not-the-password")))
                .andExpect(problem(401, "unauthenticated"));
        assertNothingChanged();
    }

    @Test
    void viewerWriting() throws Exception {
        mvc.perform(put("/api/v1/devices/{n}/data", DISK).with(viewer()).param("offset", "0")
                        .contentType(MediaType.APPLICATION_OCTET_STREAM).content(new byte[512]))
                .andExpect(problem(403, "forbidden"));
        mvc.perform(post("/api/v1/devices/{n}/flush", DISK).with(viewer())).andExpect(problem(403, "forbidden"));
        mvc.perform(delete("/api/v1/disks/{n}", DISK).with(viewer())).andExpect(problem(403, "forbidden"));
        mvc.perform(post("/api/v1/disks").with(viewer()).contentType(MediaType.APPLICATION_JSON)
                        .content("{\"name\":\"bi-viewer\",\"type\":\"memory\",\"size\":\"1MiB\"}"))
                .andExpect(problem(403, "forbidden"));
        assertNothingChanged();
    }

    @Test
    void viewerReadingData() throws Exception {
        mvc.perform(get("/api/v1/devices/{n}/data", DISK).with(viewer()).param("offset", "0").param("length", "512"))
                .andExpect(problem(403, "forbidden"));
        mvc.perform(get("/api/v1/devices/{n}", DISK).with(viewer())).andExpect(status().isOk());
        assertNothingChanged();
    }

    @Test
    void tooLargeTransfer() throws Exception {
        mvc.perform(readData(DISK, 0, (16 << 20) + 512))
                .andExpect(problem(413, "payload-too-large")).andExpect(jsonPath("$.limitBytes").value(16 << 20));
        mvc.perform(writeData(DISK, 0, new byte[(16 << 20) + 512])).andExpect(problem(413, "payload-too-large"));
        assertNothingChanged();
    }

    @Test
    void bodyOverTheLimit() throws Exception {
        String padding = "x".repeat((int) BodySizeLimit.LIMIT_BYTES);
        mvc.perform(createDisk("{\"name\":\"bi-huge\",\"type\":\"memory\",\"size\":\"1MiB\",\"x\":\"" + padding + "\"}"))
                .andExpect(problem(413, "payload-too-large"))
                .andExpect(jsonPath("$.limitBytes").value(BodySizeLimit.LIMIT_BYTES));
        mvc.perform(put("/api/v1/dm/devices/{n}/table", "bi-none").with(admin()).contentType(MediaType.TEXT_PLAIN)
                        .content("0 8 zero\n".repeat(500_000)))
                .andExpect(problem(413, "payload-too-large"));
        assertNothingChanged();
    }

    @Test
    void wrongMediaType() throws Exception {
        mvc.perform(post("/api/v1/disks").with(admin()).contentType(MediaType.TEXT_PLAIN).content("name=x"))
                .andExpect(problem(415, "unsupported-media-type"));
        mvc.perform(put("/api/v1/devices/{n}/data", DISK).with(admin()).param("offset", "0")
                        .contentType(MediaType.APPLICATION_JSON).content("[]"))
                .andExpect(problem(415, "unsupported-media-type"));
        assertNothingChanged();
    }

    @Test
    void wrongMethod() throws Exception {
        mvc.perform(delete("/api/v1/disks").with(admin()))
                .andExpect(problem(405, "method-not-allowed")).andExpect(header().exists("Allow"));
        assertNothingChanged();
    }

    @Test
    void unknownPath() throws Exception {
        mvc.perform(get("/api/v1/nothing-here").with(admin())).andExpect(problem(404, "not-found"));
        assertNothingChanged();
    }

    @Test
    void missingOrMistypedParameter() throws Exception {
        mvc.perform(get("/api/v1/devices/{n}/data", DISK).with(admin()).param("offset", "0"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("length"));
        mvc.perform(get("/api/v1/devices/{n}/data", DISK).with(admin()).param("offset", "zero").param("length", "512"))
                .andExpect(problem(400, "validation-failed")).andExpect(jsonPath("$.field").value("offset"));
        assertNothingChanged();
    }

    @Test
    void problemsAreRenderedWhateverTheClientAccepts() throws Exception {
        mvc.perform(readData(DISK, 100, 512).accept(MediaType.APPLICATION_OCTET_STREAM))
                .andExpect(problem(400, "misaligned"));
        assertNothingChanged();
    }

    @Test
    void dataIsStillThePatternWrittenFirst() throws Exception {
        byte[] back = mvc.perform(readData(DISK, 0, PATTERN.length)).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsByteArray();
        assertThat(Arrays.equals(back, PATTERN)).isTrue();
    }

    private static byte[] pattern() {
        byte[] b = new byte[4096];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }
}
