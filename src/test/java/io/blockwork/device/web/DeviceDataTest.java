package io.blockwork.device.web;

import static io.blockwork.support.Problems.problem;
import static io.blockwork.support.Requests.admin;
import static io.blockwork.support.Requests.createDisk;
import static io.blockwork.support.Requests.memoryDisk;
import static io.blockwork.support.Requests.readData;
import static io.blockwork.support.Requests.writeData;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.blockwork.support.AppTest;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;

@AppTest
class DeviceDataTest {

    @Autowired
    MockMvc mvc;

    @Test
    void writtenDataReadsBackIdenticalAndIsCounted() throws Exception {
        mvc.perform(memoryDisk("dd-rw", "64MiB")).andExpect(status().isCreated());
        byte[] data = random(1 << 20, 1);
        mvc.perform(writeData("dd-rw", 8 << 20, data)).andExpect(status().isNoContent());
        byte[] back = mvc.perform(readData("dd-rw", 8 << 20, data.length))
                .andExpect(status().isOk())
                .andExpect(content().contentType(MediaType.APPLICATION_OCTET_STREAM))
                .andReturn().getResponse().getContentAsByteArray();
        assertThat(back).isEqualTo(data);
        mvc.perform(post("/api/v1/devices/dd-rw/flush").with(admin())).andExpect(status().isNoContent());
        mvc.perform(get("/api/v1/devices/dd-rw").with(admin()))
                .andExpect(jsonPath("$.stats.reads").value(1))
                .andExpect(jsonPath("$.stats.writes").value(1))
                .andExpect(jsonPath("$.stats.flushes").value(1))
                .andExpect(jsonPath("$.stats.readBytes").value(1 << 20))
                .andExpect(jsonPath("$.stats.writtenBytes").value(1 << 20));
    }

    @Test
    void sixteenMebibytesIsTheLargestTransfer() throws Exception {
        mvc.perform(memoryDisk("dd-max", "32MiB")).andExpect(status().isCreated());
        byte[] data = random(16 << 20, 2);
        mvc.perform(writeData("dd-max", 0, data)).andExpect(status().isNoContent());
        byte[] back = mvc.perform(readData("dd-max", 0, data.length)).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsByteArray();
        assertThat(back).isEqualTo(data);
    }

    @Test
    void aFourKibibyteDiskRefusesSectorAlignedIo() throws Exception {
        mvc.perform(createDisk("{\"name\":\"dd-4k\",\"type\":\"memory\",\"size\":\"1MiB\",\"logicalBlockSize\":4096}"))
                .andExpect(status().isCreated());
        mvc.perform(writeData("dd-4k", 512, new byte[4096]))
                .andExpect(problem(400, "misaligned")).andExpect(jsonPath("$.logicalBlockSize").value(4096));
        mvc.perform(writeData("dd-4k", 4096, new byte[4096]).param("fua", "true")).andExpect(status().isNoContent());
    }

    @Test
    void aFileDiskStoresDataInItsImage() throws Exception {
        mvc.perform(createDisk("{\"name\":\"dd-file\",\"type\":\"file\",\"size\":\"4MiB\",\"cache\":\"writeback\"}"))
                .andExpect(status().isCreated());
        byte[] data = random(64 << 10, 3);
        mvc.perform(writeData("dd-file", 1 << 20, data).param("fua", "true")).andExpect(status().isNoContent());
        byte[] back = mvc.perform(readData("dd-file", 1 << 20, data.length)).andExpect(status().isOk())
                .andReturn().getResponse().getContentAsByteArray();
        assertThat(back).isEqualTo(data);
        mvc.perform(get("/api/v1/disks/dd-file").with(admin()))
                .andExpect(jsonPath("$.stats.mediaFlushes").value(1));
    }

    @Test
    void aNullDiskReadsZeros() throws Exception {
        mvc.perform(createDisk("{\"name\":\"dd-null\",\"type\":\"null\",\"size\":\"1TiB\"}")).andExpect(status().isCreated());
        mvc.perform(writeData("dd-null", 0, random(4096, 4))).andExpect(status().isNoContent());
        byte[] back = mvc.perform(readData("dd-null", 0, 4096)).andReturn().getResponse().getContentAsByteArray();
        assertThat(back).isEqualTo(new byte[4096]);
    }

    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }
}
