package io.blockwork.shared.assembly;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class StartupAssemblerTest {

    private final List<String> assembled = new ArrayList<>();
    private final Map<String, ObjectState> unavailable = new HashMap<>();

    private Restorable object(String kind, String name, Set<Ref> deps) {
        return object(kind, name, deps, () -> assembled.add(kind + " " + name));
    }

    private Restorable object(String kind, String name, Set<Ref> deps, Runnable assemble) {
        return new Restorable(new Ref(kind, name), deps, assemble, s -> unavailable.put(kind + " " + name, s));
    }

    private AssemblyReport run(Restorable... objects) {
        // two sources, as two features would contribute
        List<Restorable> all = List.of(objects);
        RestorableSource first = () -> all.subList(0, all.size() / 2);
        RestorableSource second = () -> all.subList(all.size() / 2, all.size());
        return StartupAssembler.assemble(List.of(second, first));
    }

    @Test
    void objectsComeAfterWhatTheyDependOnWhateverFeatureOwnsThem() {
        Ref d1 = new Ref("disk", "d1");
        Ref d2 = new Ref("disk", "d2");
        Ref md0 = new Ref("array", "md0");
        Ref vg0 = new Ref("pool", "vg0");
        AssemblyReport report = run(
                object("volume", "lv0", Set.of(vg0)),
                object("pool", "vg0", Set.of(md0)),
                object("array", "md0", Set.of(d1, d2)),
                object("disk", "d2", Set.of()),
                object("disk", "d1", Set.of()));
        assertThat(assembled).containsExactly("disk d1", "disk d2", "array md0", "pool vg0", "volume lv0");
        assertThat(report.objects()).allMatch(o -> o.state().live());
        assertThat(unavailable).isEmpty();
    }

    @Test
    void aFailureBlocksItsDependentsAndNothingElse() {
        Ref d1 = new Ref("disk", "d1");
        AssemblyReport report = run(
                object("disk", "d1", Set.of(), () -> {
                    throw new IllegalStateException("its image file data/disks/d1.img is missing");
                }),
                object("disk", "d2", Set.of()),
                object("array", "md0", Set.of(d1)),
                object("pool", "vg0", Set.of(new Ref("array", "md0"))));
        assertThat(assembled).containsExactly("disk d2");
        assertThat(unavailable.get("disk d1")).isEqualTo(
                ObjectState.failed("its image file data/disks/d1.img is missing"));
        assertThat(unavailable.get("array md0")).isEqualTo(ObjectState.blocked("needs disk d1, which is failed"));
        assertThat(unavailable.get("pool vg0")).isEqualTo(ObjectState.blocked("needs array md0, which is blocked"));
        assertThat(report.objects()).hasSize(4);
    }

    @Test
    void aMissingDependencyOrACycleBlocks() {
        run(
                object("array", "md9", Set.of(new Ref("disk", "never-configured"))),
                object("dm", "a", Set.of(new Ref("dm", "b"))),
                object("dm", "b", Set.of(new Ref("dm", "a"))),
                object("disk", "fine", Set.of()));
        assertThat(assembled).containsExactly("disk fine");
        assertThat(unavailable.get("array md9").reason()).isEqualTo("needs disk never-configured, which is not configured");
        assertThat(unavailable.get("dm a").actual()).isEqualTo(ObjectState.BLOCKED);
        assertThat(unavailable.get("dm b").reason()).contains("cycle");
    }

    @Test
    void optionalDependenciesOrderButDoNotBlock() {
        Ref d1 = new Ref("disk", "d1");
        Ref d2 = new Ref("disk", "d2");
        AssemblyReport report = run(
                new Restorable(new Ref("array", "md0"), Set.of(), Set.of(d1, d2, new Ref("disk", "never-configured")),
                        () -> assembled.add("array md0"), s -> unavailable.put("array md0", s)),
                object("disk", "d1", Set.of(), () -> {
                    throw new IllegalStateException("its image file is missing");
                }),
                object("disk", "d2", Set.of()));
        assertThat(assembled).containsExactly("disk d2", "array md0");
        assertThat(unavailable).containsOnlyKeys("disk d1");
        assertThat(report.objects().getLast().dependsOn())
                .containsExactly("disk d1", "disk d2", "disk never-configured");
    }
}
