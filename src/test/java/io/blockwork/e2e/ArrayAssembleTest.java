package io.blockwork.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static io.blockwork.e2e.ArrayCalls.array;
import static io.blockwork.e2e.ArrayCalls.created;
import static io.blockwork.e2e.ArrayCalls.member;
import static io.blockwork.e2e.ArrayCalls.members;
import static io.blockwork.e2e.ArrayCalls.random;
import static io.blockwork.e2e.ArrayCalls.read;
import static org.awaitility.Awaitility.await;

import io.blockwork.engine.md.metadata.Superblock;
import io.blockwork.nbd.Json;
import io.blockwork.support.Mdadm;
import io.blockwork.support.TempDataDir;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;

/**
 * Arrays from their members alone: mdadm reads the superblocks of images Blockwork made; with the
 * database deleted, {@code POST /api/v1/arrays/assemble} brings an array back from its file images;
 * a member with a torn or foreign superblock is refused with the reason and the array runs from
 * the others (issue 17's acceptance 1, 2c and 3).
 */
@Tag("real-client")
class ArrayAssembleTest {

    private static final Duration LONG = Duration.ofSeconds(60);
    private static final int MIB = 1 << 20;

    private static Object stateOf(Map<String, Object> array, String device) {
        return members(array).stream().filter(m -> device.equals(m.get("device"))).findFirst()
                .map(m -> m.get("state")).orElse(null);
    }

    private static Superblock superblockOf(Path image) throws Exception {
        byte[] block = new byte[Superblock.BLOCK];
        try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "r")) {
            f.seek(Superblock.V12_SUPER_OFFSET * 512);
            f.readFully(block);
        }
        return Superblock.decode(block, Superblock.V12_SUPER_OFFSET).superblock();
    }

    private static void flipByte(Path image, long offset) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ 0x20);
        }
    }

    @Test
    void mdadmReadsTheImagesAndTheArraysComeBackFromThemAloneWhenTheDatabaseIsLost() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data10 = random(21, 3 * MIB);
        byte[] data1 = random(22, MIB);
        String uuid10;
        String uuid1;
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            for (int i = 0; i < 6; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"as" + i + "\",\"type\":\"file\",\"size\":\"16MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"as10\",\"level\":\"raid10\",\"chunk\":\"64KiB\","
                    + "\"members\":[\"as0\",\"as1\",\"as2\",\"as3\"],\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            created(api, "/api/v1/arrays", "{\"name\":\"asr\",\"level\":\"raid1\",\"members\":[\"as4\",\"as5\"],"
                    + "\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            assertThat(api.put("/api/v1/devices/as10/data?offset=" + MIB, data10).statusCode()).isEqualTo(204);
            assertThat(api.put("/api/v1/devices/asr/data?offset=0", data1).statusCode()).isEqualTo(204);
            // md records an array clean at stop only once its initial resync is done (resync_offset
            // MaxSector); stopped mid-resync, mdadm rightly shows it active, which is not this test's case
            await().atMost(LONG).until(() -> Boolean.FALSE.equals(array(api, "as10").get("resyncPending"))
                    && Boolean.FALSE.equals(array(api, "asr").get("resyncPending")));
            uuid10 = (String) array(api, "as10").get("uuid");
            uuid1 = (String) array(api, "asr").get("uuid");
            Map<String, Object> examined = Json.parseObject(api.get("/api/v1/devices/as2/examine").body());
            assertThat(Json.at(examined, "superblock", "arrayUuid")).isEqualTo(uuid10);
            assertThat(Json.at(examined, "superblock", "deviceRole")).isEqualTo("Active device 2");
            assertThat(Json.at(examined, "superblock", "layout")).isEqualTo("near=2");
            assertThat(Json.at(examined, "usable")).isEqualTo(true);
        }

        // acceptance 1: Debian's mdadm on the members' images of both arrays
        Path images = dataDir.resolve("disks");
        for (int i = 0; i < 6; i++) {
            Path image = images.resolve("as" + i + ".img");
            Map<String, String> e = Mdadm.examine(image);
            Superblock ours = superblockOf(image);
            assertThat(e.get("Checksum")).matches("[0-9a-f]+ - correct");
            assertThat(e).containsEntry("Events", Long.toString(ours.events())).containsEntry("State", "clean");
            if (i < 4) {
                assertThat(e).containsEntry("Raid Level", "raid10").containsEntry("Layout", "near=2")
                        .containsEntry("Chunk Size", "64K").containsEntry("Array UUID", uuid10)
                        .containsEntry("Device Role", "Active device " + i);
            } else {
                assertThat(e).containsEntry("Raid Level", "raid1").containsEntry("Array UUID", uuid1)
                        .containsEntry("Device Role", "Active device " + (i - 4)).doesNotContainKey("Layout");
            }
        }

        // acceptance 2c: the configuration is lost; the images are all there is
        try (Stream<Path> db = Files.list(dataDir)) {
            for (Path p : db.filter(p -> p.getFileName().toString().startsWith("blockwork")).toList()) {
                Files.delete(p);
            }
        }
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            assertThat(api.get("/api/v1/arrays").body()).isEqualTo("[]");
            for (int i = 0; i < 6; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"as" + i + "\",\"type\":\"file\",\"size\":\"16MiB\",\"image\":\"existing\"}");
            }
            // devices of two arrays at once are refused, naming them
            var mixed = api.postJson("/api/v1/arrays/assemble", "{\"devices\":[\"as0\",\"as4\"]}");
            assertThat(mixed.statusCode()).isEqualTo(400);
            assertThat(mixed.body()).contains("\"field\":\"devices\"", "different arrays");

            var r10 = api.postJson("/api/v1/arrays/assemble", "{\"devices\":[\"as3\",\"as1\",\"as2\",\"as0\"]}");
            assertThat(r10.statusCode()).as(r10.body()).isEqualTo(201);
            assertThat(r10.headers().firstValue("Location")).hasValue("/api/v1/arrays/as10");
            Map<String, Object> body = Json.parseObject(r10.body());
            assertThat(Json.at(body, "array", "uuid")).isEqualTo(uuid10);
            assertThat(Json.at(body, "array", "layout")).isEqualTo("n2");
            assertThat(Json.at(body, "devices", 0, "outcome")).isEqualTo("in_sync");
            assertThat(Json.at(body, "devices", 0, "slot")).isEqualTo(3L);
            assertThat(read(api, "as10", MIB, data10.length)).isEqualTo(data10);

            var r1 = api.postJson("/api/v1/arrays/assemble", "{\"name\":\"again1\",\"devices\":[\"as4\",\"as5\"]}");
            assertThat(r1.statusCode()).as(r1.body()).isEqualTo(201);
            assertThat(read(api, "again1", 0, data1.length)).isEqualTo(data1);
            assertThat(api.get("/api/v1/devices/as4").body()).contains("\"holders\":[\"array again1\"]");
        }

        // and it stays configured: the next start assembles it as usual
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            assertThat(Json.at(array(api, "again1"), "state", "actual")).isEqualTo("active");
            assertThat(read(api, "as10", MIB, data10.length)).isEqualTo(data10);
        }
    }

    /** Acceptance 3: a torn superblock (bad checksum) and a garbled one (bad magic) are refused; the array runs from the third. */
    @Test
    void tornAndGarbledSuperblocksAreRefusedAtStartUpAndTheArrayRunsFromTheRest() throws Exception {
        Path dataDir = TempDataDir.newDataDir();
        byte[] data = random(23, 2 * MIB);
        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            for (int i = 0; i < 3; i++) {
                created(api, "/api/v1/disks", "{\"name\":\"at" + i + "\",\"type\":\"file\",\"size\":\"16MiB\"}");
            }
            created(api, "/api/v1/arrays", "{\"name\":\"atm\",\"level\":\"raid1\",\"members\":[\"at0\",\"at1\",\"at2\"],"
                    + "\"speedLimits\":{\"min\":\"100MiB\",\"max\":\"1GiB\"}}");
            assertThat(api.put("/api/v1/devices/atm/data?offset=0", data).statusCode()).isEqualTo(204);
        }
        Path images = dataDir.resolve("disks");
        flipByte(images.resolve("at2.img"), Superblock.V12_SUPER_OFFSET * 512 + 200);
        flipByte(images.resolve("at1.img"), Superblock.V12_SUPER_OFFSET * 512 + 1);

        try (RunningService running = RunningService.start(dataDir)) {
            ServiceClient api = running.client();
            Map<String, Object> atm = array(api, "atm");
            assertThat(Json.at(atm, "state", "actual")).isEqualTo("active");
            assertThat(atm.get("arrayState").toString()).contains("degraded");
            List<String> reasons = new ArrayList<>();
            for (String d : List.of("at1", "at2")) {
                assertThat(member(atm, d).get("state")).isEqualTo("missing");
                reasons.add((String) member(atm, d).get("faultReason"));
            }
            assertThat(reasons.get(0)).contains("refused at start-up", "no md superblock (magic is");
            assertThat(reasons.get(1)).contains("refused at start-up", "checksum", "torn or corrupt");
            assertThat(read(api, "atm", 0, data.length)).isEqualTo(data);

            Map<String, Object> torn = Json.parseObject(api.get("/api/v1/devices/at2/examine").body());
            assertThat(torn.get("usable")).isEqualTo(false);
            assertThat(Json.at(torn, "superblock", "checksumCorrect")).isEqualTo(false);
            assertThat(Json.at(torn, "superblock", "expectedChecksum")).isNotEqualTo(Json.at(torn, "superblock", "checksum"));
            Map<String, Object> garbled = Json.parseObject(api.get("/api/v1/devices/at1/examine").body());
            assertThat(garbled.get("found")).isEqualTo(false);

            // the refused devices come back in full when asked
            assertThat(api.post("/api/v1/arrays/atm/members/at2/re-add").statusCode()).isEqualTo(200);
            await().atMost(LONG).until(() -> "in_sync".equals(stateOf(array(api, "atm"), "at2")));
        }
    }
}
