package io.blockwork.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** NBD buffers are mapped pages that go back to the system as soon as their arena closes. */
@Tag("unit")
class PageAllocatorTest {

    private static final long MIB = 1 << 20;

    @Test
    void buffersAreMappedPagesWhenNativeAccessIsEnabled() {
        assertThat(PageAllocator.mapping()).as("--enable-native-access=ALL-UNNAMED in the test JVM").isTrue();
    }

    @Test
    void aBufferIsZeroedAlignedAndUnusableOnceFreed() {
        MemorySegment s;
        try (Arena arena = Arena.ofShared()) {
            s = PageAllocator.allocate(64 * 1024, arena);
            assertThat(s.address() % 4096).isZero();
            assertThat(s.byteSize()).isEqualTo(64 * 1024);
            for (long i = 0; i < s.byteSize(); i += 4096) {
                assertThat(s.get(ValueLayout.JAVA_BYTE, i)).isZero();
            }
            s.set(ValueLayout.JAVA_LONG, 8, 42L);
            assertThat(s.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(42L);
        }
        assertThatThrownBy(() -> s.get(ValueLayout.JAVA_LONG, 8)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void freedBuffersLeaveTheProcessAtOnce() throws IOException {
        long before = rss();
        long filled;
        try (Arena arena = Arena.ofShared()) {
            for (int i = 0; i < 64; i++) {
                PageAllocator.allocate(MIB, arena).fill((byte) 1); // touch every page
            }
            filled = rss();
        }
        long after = rss();
        assertThat(filled - before).as("64 MiB touched").isGreaterThan(48 * MIB);
        assertThat(filled - after).as("given back").isGreaterThan(48 * MIB);
    }

    private static long rss() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS");
    }
}
