package io.blockwork.array.app;

import io.blockwork.engine.md.MdArray;
import io.blockwork.engine.md.MdArrays;
import io.blockwork.engine.md.MdAssembly;
import io.blockwork.engine.md.MdStrategies;
import io.blockwork.engine.md.SpeedLimits;
import io.blockwork.engine.md.metadata.Examination;
import io.blockwork.array.store.ArrayEntity;
import io.blockwork.shared.consistency.ManagementOperations;
import io.blockwork.shared.device.DeviceKind;
import io.blockwork.shared.device.DeviceNames;
import io.blockwork.shared.device.DeviceRegistry;
import io.blockwork.shared.device.Holder;
import io.blockwork.shared.device.RegisteredDevice;
import io.blockwork.shared.problem.Problem;
import io.blockwork.shared.problem.ProblemException;
import java.util.HashMap;
import java.util.Map;
import org.springframework.stereotype.Service;

/**
 * md arrays from their members: {@code mdadm --assemble} from the devices' superblocks alone, and
 * {@code mdadm --examine} of a device. An assembled array is configured as if it had been created,
 * and {@link ArrayService} manages it from then on.
 */
@Service
public class ArrayAssemblyService {

    private final ArrayService service;
    private final DeviceRegistry registry;
    private final ManagementOperations management;
    private final MdArrays engine;
    private final ArrayChangeRecorder recorder;

    public ArrayAssemblyService(ArrayService service, DeviceRegistry registry, ManagementOperations management,
                                MdArrays engine, ArrayChangeRecorder recorder) {
        this.service = service;
        this.registry = registry;
        this.management = management;
        this.engine = engine;
        this.recorder = recorder;
    }

    /**
     * {@code mdadm --assemble} from the devices' superblocks alone (H2 lost, or images from another
     * machine): the array they describe comes back with its data, under its own name or
     * {@code a.name()}. Devices that cannot be used are left out with the reason; stale members are
     * rebuilt. The devices must be active and unused.
     */
    public ArrayAssembly assemble(ArrayAssemble a) {
        if (a.name() != null) {
            DeviceNames.require(a.name(), "name");
        }
        MdStrategies strategies = MdErrors.call(() -> MdStrategies.of(a.flushStrategy(), a.barrierStrategy()));
        SpeedLimits speed = ArrayService.speedLimits(a.speedMinBytes(), a.speedMaxBytes(), "speedLimits", SpeedLimits.DEFAULT);
        return management.apply(changes -> {
            if (a.name() != null) {
                registry.requireFree(a.name());
            }
            Map<String, String> seen = new HashMap<>();
            for (int i = 0; i < a.devices().size(); i++) {
                service.requireJoiner("devices[" + i + "]", a.devices().get(i), seen);
            }
            MdAssembly.Result result = MdErrors.call(() -> engine.assemble(a.name(), a.devices(), strategies, speed));
            MdArray array = result.array();
            String name = array.name();
            changes.undoOnRollback(() -> engine.stop(name));
            if (array.inactiveReason() != null) {
                throw new ProblemException(Problem.CONFLICT, "array " + name + " cannot start: " + array.inactiveReason())
                        .atField("devices");
            }
            if (a.name() == null && registry.find(name).isPresent()) {
                throw new ProblemException(Problem.CONFLICT, "the superblocks name the array '" + name + "', which is"
                        + " taken by another block device; give another name").atField("name");
            }
            recorder.watch(array);
            registry.register(name, DeviceKind.ARRAY, array);
            changes.undoOnRollback(() -> registry.unregister(name));
            Holder holder = ArrayService.holder(name);
            for (MdAssembly.DeviceOutcome d : result.devices()) {
                if (!d.outcome().equals("refused")) {
                    service.claim(d.device(), holder, changes);
                }
            }
            ArrayEntity record = service.newRecord(array, speed);
            MemberRows.write(record, array, service::kindOf);
            return new ArrayAssembly(service.view(service.save(record)), result.devices());
        });
    }

    /** {@code mdadm --examine}: what a block device's md metadata says (any device, members of running arrays too). */
    public Examination examine(String device) {
        RegisteredDevice entry = registry.find(device).orElseThrow(() -> ProblemException.notFound("block device", device));
        if (!entry.live()) {
            throw new ProblemException(Problem.CONFLICT, entry.kind().label() + " " + device + " is not active ("
                    + entry.state().reason() + ")");
        }
        return engine.examine(device);
    }
}
