package io.blockwork.disk.web;

import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.createDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.MockMvc;

/** Issue 3, acceptance 4: the flush/FUA contract seen through the REST API across a power cut. */
@AppTest
class PowerCutApiTest {

    private static final int BLOCK = 512;
    private static final int REGION = 16 * 1024;

    @Autowired
    MockMvc mvc;

    @Test
    void flushedAndFuaWritesSurviveAndUnflushedOnesAreGoneOrWholeNeverTorn() throws Exception {
        mvc.perform(createDisk("{\"name\":\"pc-disk\",\"type\":\"memory\",\"size\":\"1MiB\",\"cache\":\"writeback\"}"))
                .andExpect(status().isCreated());
        byte[] flushed = filled(REGION, 1);
        byte[] fua = filled(REGION, 2);
        byte[] unflushed = filled(REGION, 3);
        byte[] overwrite = filled(REGION, 4);

        mvc.perform(writeData("pc-disk", 0, flushed)).andExpect(status().isNoContent());
        mvc.perform(post("/api/v1/devices/pc-disk/flush").with(admin())).andExpect(status().isNoContent());
        mvc.perform(writeData("pc-disk", REGION, fua).param("fua", "true")).andExpect(status().isNoContent());
        mvc.perform(writeData("pc-disk", 2 * REGION, unflushed)).andExpect(status().isNoContent());
        // an unflushed overwrite of flushed data: after the cut, each block is old or new
        mvc.perform(writeData("pc-disk", 3 * REGION, flushed)).andExpect(status().isNoContent());
        mvc.perform(post("/api/v1/devices/pc-disk/flush").with(admin())).andExpect(status().isNoContent());
        mvc.perform(writeData("pc-disk", 3 * REGION, overwrite)).andExpect(status().isNoContent());

        mvc.perform(post("/api/v1/disks/pc-disk/power-cut").with(admin())).andExpect(status().isOk());

        assertThat(read(0)).isEqualTo(flushed);
        assertThat(read(REGION)).isEqualTo(fua);
        assertEachBlockIsOneOf(read(2 * REGION), unflushed, new byte[REGION]);
        assertEachBlockIsOneOf(read(3 * REGION), overwrite, flushed);
    }

    private byte[] read(long offset) throws Exception {
        return mvc.perform(readData("pc-disk", offset, REGION)).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsByteArray();
    }

    private static void assertEachBlockIsOneOf(byte[] actual, byte[] a, byte[] b) {
        for (int off = 0; off < actual.length; off += BLOCK) {
            byte[] block = Arrays.copyOfRange(actual, off, off + BLOCK);
            assertThat(Arrays.equals(block, Arrays.copyOfRange(a, off, off + BLOCK))
                    || Arrays.equals(block, Arrays.copyOfRange(b, off, off + BLOCK)))
                    .as("block at %d is torn", off).isTrue();
        }
    }

    /** Every byte differs from its neighbours' pattern, so a torn block could not pass for a whole one. */
    private static byte[] filled(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (seed * 37 + i * 13 + (i >> 9));
        }
        return b;
    }
}
