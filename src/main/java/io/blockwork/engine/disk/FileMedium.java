package io.blockwork.engine.disk;

import io.blockwork.engine.block.Allocation;
import io.blockwork.engine.block.Extents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;

/**
 * A sparse file of fixed size. The operating system's page cache is the volatile cache: a flush
 * is {@link FileChannel#force}. In writethrough mode the file is opened with DSYNC, so a write is
 * durable when it returns. FUA is emulated by the disk (write, then flush).
 */
public final class FileMedium implements Medium {

    private static final int ZERO_CHUNK = 1 << 20;
    private static final ByteBuffer ZEROES = ByteBuffer.allocateDirect(ZERO_CHUNK).asReadOnlyBuffer();

    private final Path path;
    private final long size;
    private final FileChannel channel;
    private final boolean writethrough;
    /** lseek(SEEK_DATA/SEEK_HOLE) and hole punching, or null where the platform does not offer them. */
    private final NativeFile extents;

    private FileMedium(Path path, long size, FileChannel channel, CacheMode cache) {
        this.path = path;
        this.size = size;
        this.channel = channel;
        this.writethrough = cache == CacheMode.WRITETHROUGH;
        this.extents = NativeFile.open(path);
    }

    /**
     * Creates the file, sparse, at {@code size} bytes; fails if it exists. When this returns, the
     * file and its directory entry are durable (fsync of both), so a caller may record the disk as
     * created. If anything fails, the file is removed again: a refused size leaves nothing behind.
     *
     * @throws ImageSizeException if the file system cannot hold a file of {@code size} bytes
     */
    public static FileMedium create(Path path, long size, CacheMode cache) {
        Path dir = path.toAbsolutePath().getParent();
        FileChannel ch;
        try {
            Files.createDirectories(dir);
            ch = FileChannel.open(path, options(cache, StandardOpenOption.CREATE_NEW));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + path, e);
        }
        try {
            try {
                // ftruncate extends without allocating (FileChannel.truncate only shrinks), so the
                // file starts as one hole.
                try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(path.toFile(), "rw")) {
                    f.setLength(size);
                }
            } catch (IOException e) {
                // EFBIG and the like: the size, not the disk, is at fault
                throw new ImageSizeException(path, size, e);
            }
            ch.force(true);
            syncDirectory(dir);
            return new FileMedium(path, size, ch, cache);
        } catch (IOException | RuntimeException e) {
            discardFailed(path, ch, e);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new UncheckedIOException("cannot create " + path, (IOException) e);
        }
    }

    /** Deletes an image and makes the deletion durable. Absent is fine. */
    public static void delete(Path path) {
        try {
            if (Files.deleteIfExists(path)) {
                syncDirectory(path.toAbsolutePath().getParent());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + path, e);
        }
    }

    /**
     * fsync of a directory: makes the entries created or removed in it durable (a new file's
     * data can be durable while the name that leads to it is not). Linux allows it on a
     * read-only descriptor of the directory.
     */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private static void discardFailed(Path path, FileChannel ch, Exception cause) {
        try {
            ch.close();
            Files.deleteIfExists(path);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }

    /** The file system refused a file of this size (EFBIG: larger than it can hold). */
    public static final class ImageSizeException extends UncheckedIOException {
        private final long size;

        ImageSizeException(Path path, long size, IOException cause) {
            super("the file system cannot hold " + path.getFileName() + " at " + size + " bytes: "
                    + cause.getMessage(), cause);
            this.size = size;
        }

        public long size() {
            return size;
        }
    }

    /** Opens an existing file; its length must be {@code size}. */
    public static FileMedium open(Path path, long size, CacheMode cache) {
        try {
            FileChannel ch = FileChannel.open(path, options(cache));
            if (ch.size() != size) {
                long actual = ch.size();
                ch.close();
                throw new IllegalStateException(path + " is " + actual + " bytes, expected " + size);
            }
            return new FileMedium(path, size, ch, cache);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + path, e);
        }
    }

    private static Set<StandardOpenOption> options(CacheMode cache, StandardOpenOption... extra) {
        EnumSet<StandardOpenOption> o = EnumSet.of(StandardOpenOption.READ, StandardOpenOption.WRITE);
        if (cache == CacheMode.WRITETHROUGH) {
            o.add(StandardOpenOption.DSYNC);
        }
        o.addAll(java.util.List.of(extra));
        return o;
    }

    public Path path() {
        return path;
    }

    @Override
    public long sizeBytes() {
        return size;
    }

    @Override
    public void read(long offset, MemorySegment into) {
        ByteBuffer buf = into.asByteBuffer();
        try {
            while (buf.hasRemaining()) {
                int n = channel.read(buf, offset + buf.position());
                if (n < 0) {
                    throw new IOException("unexpected end of " + path);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void write(long offset, MemorySegment from, boolean durable) {
        writeFully(from.asByteBuffer(), offset);
    }

    private void writeFully(ByteBuffer buf, long offset) {
        try {
            int start = buf.position();
            while (buf.hasRemaining()) {
                channel.write(buf, offset + buf.position() - start);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The file system's own answer (SEEK_DATA/SEEK_HOLE), which covers the page cache: exact to
     * its block size, and data everywhere where it cannot be asked.
     */
    @Override
    public void allocation(long offset, long length, Extents out) {
        if (extents == null) {
            out.add(length, Allocation.DATA);
            return;
        }
        long end = offset + length;
        long pos = offset;
        while (pos < end) {
            long data = extents.seek(pos, true, end);
            if (data < 0) {
                out.add(end - pos, Allocation.DATA);
                return;
            }
            if (!out.add(data - pos, Allocation.HOLE) || data >= end) {
                return;
            }
            long hole = extents.seek(data, false, end);
            long dataEnd = hole < 0 ? end : hole;
            if (!out.add(dataEnd - data, Allocation.DATA)) {
                return;
            }
            pos = dataEnd;
        }
    }

    /** Punches a hole where the file system can (reads return zeros, the space is freed), else writes zeros. */
    @Override
    public void discard(long offset, long length) {
        writeZeroes(offset, length);
    }

    @Override
    public void writeZeroes(long offset, long length) {
        if (extents != null && extents.punchHole(offset, length)) {
            if (writethrough) {
                flush(); // DSYNC covers the channel's writes, not our descriptor's
            }
            return;
        }
        long done = 0;
        while (done < length) {
            int n = (int) Math.min(ZERO_CHUNK, length - done);
            writeFully(ZEROES.duplicate().limit(n), offset + done);
            done += n;
        }
    }

    @Override
    public void flush() {
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public boolean nativeFua() {
        return false;
    }

    @Override
    public boolean blocking() {
        return true;
    }

    @Override
    public long allocatedBytes() {
        try {
            Object blocks = Files.getAttribute(path, "unix:blocks");
            return blocks instanceof Long b ? b * 512 : size;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return size;
        }
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public void close() {
        if (extents != null) {
            extents.close();
        }
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
