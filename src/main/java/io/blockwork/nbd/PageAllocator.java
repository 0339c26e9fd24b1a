package io.blockwork.nbd;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Payload memory straight from the kernel: an anonymous private mapping per buffer, unmapped
 * when its arena closes, so the process gives memory back the moment the server lets a buffer
 * go. Through malloc that does not happen: after the first megabyte buffer is freed, glibc raises
 * its mmap threshold and serves later ones from its heaps, which keep freed memory; that is how
 * a crowd of clients used to leave the service's RSS at its peak after it had gone. The kernel's
 * pages also come zeroed, so nothing is cleared by hand.
 *
 * <p>Calling mmap needs native access ({@code Enable-Native-Access: ALL-UNNAMED} in the jar,
 * {@code --enable-native-access=ALL-UNNAMED} elsewhere). Where it is denied, or where there is
 * no Linux mmap, buffers come from the JDK's allocator instead, and a warning says so once.
 */
final class PageAllocator {

    private static final System.Logger LOG = System.getLogger(PageAllocator.class.getName());
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20; // Linux x86-64 and aarch64
    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;

    static {
        MethodHandle mmap = null;
        MethodHandle munmap = null;
        if (System.getProperty("os.name", "").startsWith("Linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                mmap = linker.downcallHandle(linker.defaultLookup().findOrThrow("mmap"),
                        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                munmap = linker.downcallHandle(linker.defaultLookup().findOrThrow("munmap"),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
            } catch (RuntimeException e) { // IllegalCallerException when native access is denied
                LOG.log(Level.WARNING, "NBD buffers come from the JDK's allocator, not mmap (" + e
                        + "); run with --enable-native-access=ALL-UNNAMED so freed buffers go back to the system");
                mmap = null;
                munmap = null;
            }
        }
        MMAP = mmap;
        MUNMAP = munmap;
    }

    private PageAllocator() {}

    /** Whether buffers are mapped pages (else the JDK's allocator). */
    static boolean mapping() {
        return MMAP != null;
    }

    /**
     * {@code bytes} of zeroed memory, 4 KiB aligned, that lives as long as {@code arena}: closing
     * it unmaps the pages. Fails with OutOfMemoryError if the system has no memory to give.
     */
    static MemorySegment allocate(long bytes, Arena arena) {
        if (MMAP == null) {
            return arena.allocate(bytes, 4096);
        }
        MemorySegment at;
        try {
            at = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, bytes, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS,
                    -1, 0L);
        } catch (Throwable e) {
            throw new IllegalStateException("mmap failed", e);
        }
        if (at.address() == -1L) { // MAP_FAILED
            throw new OutOfMemoryError("mmap of " + bytes + " bytes for an NBD buffer failed");
        }
        return at.reinterpret(bytes, arena, PageAllocator::unmap);
    }

    private static void unmap(MemorySegment pages) {
        try {
            int ignored = (int) MUNMAP.invokeExact(pages, pages.byteSize());
        } catch (Throwable e) {
            LOG.log(Level.WARNING, "munmap failed", e);
        }
    }
}
