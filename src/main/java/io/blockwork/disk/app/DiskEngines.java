package io.blockwork.disk.app;

import io.blockwork.BlockworkProperties;
import io.blockwork.engine.block.AbstractBlockDevice;
import io.blockwork.engine.block.BlockDevice;
import io.blockwork.engine.disk.Disk;
import io.blockwork.engine.disk.FileMedium;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.nbd.client.NbdRemoteDevice;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.springframework.stereotype.Component;

/** Builds the engine's {@link Disk} objects from specs, and owns where file disks keep their images. */
@Component
class DiskEngines {

    private static final System.Logger LOG = System.getLogger(DiskEngines.class.getName());
    private static final String IMAGE_SUFFIX = ".img";
    /** Where start-up moves images no disk owns. */
    static final String LOST_AND_FOUND = "lost+found";

    private final Path diskDir;

    DiskEngines(BlockworkProperties properties) {
        this.diskDir = properties.diskDir();
    }

    Path imagePath(String name) {
        return diskDir.resolve(name + IMAGE_SUFFIX);
    }

    /**
     * A brand-new disk; a file disk gets a new sparse image, which must not exist yet; an nbd disk
     * connects to its server now (so a wrong URI is an error here) and takes the export's size.
     */
    AbstractBlockDevice create(DiskSpec spec) {
        return switch (spec.type()) {
            case MEMORY -> Disk.memory(spec.name(), spec.sizeBytes(), spec.engineConfig());
            case NULL -> Disk.nullDisk(spec.name(), spec.sizeBytes(), spec.engineConfig());
            case FILE -> createFile(spec);
            case NBD -> connect(spec);
        };
    }

    private static NbdRemoteDevice connect(DiskSpec spec) {
        NbdRemoteDevice device;
        try {
            device = NbdRemoteDevice.connect(spec.name(), spec.clientConfig());
        } catch (IOException e) {
            throw new ProblemException(Problem.REMOTE_UNAVAILABLE, "nbd disk " + spec.name() + ": " + e.getMessage())
                    .atField("uri").causedBy(e);
        }
        if (spec.sizeBytes() != 0 && spec.sizeBytes() != device.sizeBytes()) {
            device.close();
            throw ProblemException.invalid("size", "the export at " + spec.remote().uri() + " has "
                    + device.sizeBytes() + " bytes, not " + spec.sizeBytes() + " (leave size out to take the export's)");
        }
        if (device.status().export().readOnly()) {
            device.close();
            throw ProblemException.invalid("uri", "the export at " + spec.remote().uri() + " is read-only");
        }
        return device;
    }

    private Disk createFile(DiskSpec spec) {
        Path path = imagePath(spec.name());
        try {
            return Disk.createFile(spec.name(), path, spec.sizeBytes(), spec.engineConfig());
        } catch (FileMedium.ImageSizeException e) {
            throw ProblemException.invalid("size", e.getMessage()).with("sizeBytes", e.size());
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof FileAlreadyExistsException) {
                throw new ProblemException(Problem.CONFLICT, "the image file " + path
                        + " already exists; move it away or choose another name").atField("name");
            }
            throw new ProblemException(Problem.IO_ERROR, "cannot create " + path + ": " + e.getCause())
                    .causedBy(e);
        }
    }

    /** A file disk over the image already in the data dir, whose length must be the spec's size. */
    Disk adopt(DiskSpec spec) {
        Path path = imagePath(spec.name());
        if (!Files.isRegularFile(path)) {
            throw ProblemException.invalid("image", "there is no image " + path + " to open");
        }
        try {
            return Disk.openFile(spec.name(), path, spec.sizeBytes(), spec.engineConfig());
        } catch (IllegalStateException e) {
            throw ProblemException.invalid("size", e.getMessage());
        } catch (UncheckedIOException e) {
            throw new ProblemException(Problem.IO_ERROR, "cannot open " + path + ": " + e.getCause()).causedBy(e);
        }
    }

    /**
     * The disk as it comes back after a restart: file disks reopen their image, nbd disks connect
     * in the background (a server that is down leaves the disk failing I/O, not missing), others
     * start empty.
     */
    AbstractBlockDevice reopen(DiskSpec spec) {
        if (spec.type() == DiskType.NBD) {
            return NbdRemoteDevice.reopen(spec.name(), spec.clientConfig(), spec.sizeBytes());
        }
        if (spec.type() != DiskType.FILE) {
            return create(spec);
        }
        Path path = imagePath(spec.name());
        if (!Files.exists(path)) {
            throw new IllegalStateException("its image file " + path + " is missing");
        }
        return Disk.openFile(spec.name(), path, spec.sizeBytes(), spec.engineConfig());
    }

    /** Releases a disk for good: closes it (an nbd disk disconnects) and deletes a file disk's image. */
    void destroy(AbstractBlockDevice disk, DiskType type) {
        close(disk);
        if (type == DiskType.FILE) {
            deleteImage(disk.name());
        }
    }

    static void close(BlockDevice device) {
        if (device instanceof Disk d) {
            d.close();
        } else if (device instanceof NbdRemoteDevice r) {
            r.close();
        }
    }

    void deleteImage(String name) {
        FileMedium.delete(imagePath(name));
    }

    /**
     * Moves the images no file disk owns into {@code lost+found/} and returns their names. Only
     * the service writes this directory, and it creates an image before the disk's row commits and
     * deletes it after the row's deletion commits, so an image without a row is one of those two
     * steps cut short by a crash: a create that was never acknowledged, or a delete that was.
     * Either way it must leave the name free. It is moved, never deleted, as fsck does: the image
     * may be one a user brought to adopt ({@code "image":"existing"}) whose create never committed
     * (see the durability notes in docs/engine/durability.md).
     */
    List<String> sweepOrphans(Set<String> fileDisks) {
        if (!Files.isDirectory(diskDir)) {
            return List.of();
        }
        List<String> swept = new ArrayList<>();
        Path lostFound = diskDir.resolve(LOST_AND_FOUND);
        try (Stream<Path> images = Files.list(diskDir)) {
            for (Path image : images.sorted().toList()) {
                String file = image.getFileName().toString();
                if (!file.endsWith(IMAGE_SUFFIX) || !Files.isRegularFile(image)) {
                    continue;
                }
                String name = file.substring(0, file.length() - IMAGE_SUFFIX.length());
                if (DeviceNames.valid(name) && !fileDisks.contains(name)) {
                    Files.createDirectories(lostFound);
                    Path target = lostFound.resolve(name + "-" + System.currentTimeMillis() + IMAGE_SUFFIX);
                    LOG.log(System.Logger.Level.WARNING, "moving " + image + " to " + target + ": no file disk owns"
                            + " it (left by a create or delete the service did not finish)");
                    Files.move(image, target, StandardCopyOption.ATOMIC_MOVE);
                    FileMedium.syncDirectory(lostFound);
                    FileMedium.syncDirectory(diskDir);
                    swept.add(name);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sweep " + diskDir, e);
        }
        return swept;
    }
}
