package io.blockwork.engine.disk;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * The two calls on a sparse file the JDK does not offer, made through the foreign function API on
 * a descriptor of our own: {@code lseek(SEEK_DATA / SEEK_HOLE)} to find where data is, and
 * {@code fallocate(PUNCH_HOLE)} to give a discarded range back. Where they are not available
 * (not Linux, native access refused, a file system without holes) {@link #open} returns null or a
 * call returns false, and the caller falls back to writing zeros and reporting data.
 */
final class NativeFile implements AutoCloseable {

    private static final int O_RDWR = 2;
    private static final int SEEK_DATA = 3;
    private static final int SEEK_HOLE = 4;
    private static final int FALLOC_FL_KEEP_SIZE = 1;
    private static final int FALLOC_FL_PUNCH_HOLE = 2;
    private static final int ENXIO = 6;

    private static final Calls CALLS = Calls.load();

    /** The bound functions, or null where they cannot be had. */
    private record Calls(MethodHandle open, MethodHandle close, MethodHandle lseek, MethodHandle fallocate,
                         StructLayout callState, long errnoOffset) {
        static Calls load() {
            if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
                return null;
            }
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                return new Calls(
                        linker.downcallHandle(libc.find("open").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.firstVariadicArg(2)),
                        linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT)),
                        linker.downcallHandle(libc.find("lseek").orElseThrow(),
                                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT),
                                Linker.Option.captureCallState("errno")),
                        linker.downcallHandle(libc.find("fallocate").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG)),
                        Linker.Option.captureStateLayout(),
                        Linker.Option.captureStateLayout().byteOffset(MemoryLayout.PathElement.groupElement("errno")));
            } catch (RuntimeException | LinkageError e) {
                // IllegalCallerException when native access is refused: the fallbacks apply.
                return null;
            }
        }
    }

    private final int fd;
    private volatile boolean punchWorks = true;

    private NativeFile(int fd) {
        this.fd = fd;
    }

    /** A descriptor of its own on {@code path}, or null if native calls are not available. */
    static NativeFile open(Path path) {
        if (CALLS == null) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) CALLS.open.invokeExact(arena.allocateFrom(path.toAbsolutePath().toString()), O_RDWR);
            return fd < 0 ? null : new NativeFile(fd);
        } catch (Throwable e) {
            return null;
        }
    }

    /**
     * The first offset at or after {@code from} holding data ({@code data}) or in a hole, or
     * {@code size} if there is none before the end; -1 if the call failed.
     */
    long seek(long from, boolean data, long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALLS.callState);
            long r = (long) CALLS.lseek.invokeExact(state, fd, from, data ? SEEK_DATA : SEEK_HOLE);
            if (r >= 0) {
                return Math.min(r, size);
            }
            return state.get(JAVA_INT, CALLS.errnoOffset) == ENXIO ? size : -1;
        } catch (Throwable e) {
            return -1;
        }
    }

    /** Frees the range (reads return zeros); false if the file system cannot, then stops trying. */
    boolean punchHole(long offset, long length) {
        if (!punchWorks) {
            return false;
        }
        try {
            int r = (int) CALLS.fallocate.invokeExact(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length);
            if (r != 0) {
                punchWorks = false;
            }
            return r == 0;
        } catch (Throwable e) {
            punchWorks = false;
            return false;
        }
    }

    @Override
    public void close() {
        try {
            int unused = (int) CALLS.close.invokeExact(fd);
        } catch (Throwable e) {
            // closing is best effort
        }
    }
}
