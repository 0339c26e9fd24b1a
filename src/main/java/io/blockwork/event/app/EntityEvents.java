package io.blockwork.event.app;

import io.blockwork.array.store.ArrayMemberEntity;
import io.blockwork.shared.event.Event;
import io.blockwork.shared.event.EventHub;
import io.blockwork.shared.event.EventType;
import jakarta.persistence.EntityManagerFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.PostDeleteEvent;
import org.hibernate.event.spi.PostDeleteEventListener;
import org.hibernate.event.spi.PostInsertEvent;
import org.hibernate.event.spi.PostInsertEventListener;
import org.hibernate.event.spi.PostUpdateEvent;
import org.hibernate.event.spi.PostUpdateEventListener;
import org.hibernate.persister.entity.EntityPersister;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Created, changed and deleted events for every configured object, from one place: the rows
 * themselves. Whatever service writes a disk, array, member, mapped device, pool, volume,
 * snapshot, export, workload or experiment row, Hibernate tells this listener as it flushes; the
 * events are held until the transaction commits and published then, so a refused or rolled-back
 * operation publishes nothing, and each object gets one event per transaction (created then
 * changed is "created", created then deleted is nothing).
 *
 * <p>No service needs a line of its own for these events, which keeps them right while services
 * are added, split and moved. The listener runs inside Hibernate's flush: it reads the entity's
 * fields and never queries ({@link EntityRefs}).
 */
@Component
class EntityEvents implements PostInsertEventListener, PostUpdateEventListener, PostDeleteEventListener {

    private final EventHub hub;

    EntityEvents(EntityManagerFactory emf, EventHub hub) {
        this.hub = hub;
        EventListenerRegistry registry = emf.unwrap(SessionFactoryImplementor.class).getEventListenerRegistry();
        registry.appendListeners(org.hibernate.event.spi.EventType.POST_INSERT, (PostInsertEventListener) this);
        registry.appendListeners(org.hibernate.event.spi.EventType.POST_UPDATE, (PostUpdateEventListener) this);
        registry.appendListeners(org.hibernate.event.spi.EventType.POST_DELETE, (PostDeleteEventListener) this);
    }

    @Override
    public void onPostInsert(PostInsertEvent event) {
        record(event.getEntity(), event.getSession(), EventType.CREATED, List.of(), null);
    }

    @Override
    public void onPostUpdate(PostUpdateEvent event) {
        List<String> fields = new ArrayList<>();
        String[] names = event.getPersister().getPropertyNames();
        String renamedFrom = null;
        if (event.getDirtyProperties() != null) {
            for (int i : event.getDirtyProperties()) {
                fields.add(names[i]);
                if (names[i].equals("name") && event.getOldState() != null) {
                    renamedFrom = String.valueOf(event.getOldState()[i]);
                }
            }
        }
        record(event.getEntity(), event.getSession(), EventType.CHANGED, fields, renamedFrom);
    }

    @Override
    public void onPostDelete(PostDeleteEvent event) {
        record(event.getEntity(), event.getSession(), EventType.DELETED, List.of(), null);
    }

    @Override
    public boolean requiresPostCommitHandling(EntityPersister persister) {
        return false;
    }

    private void record(Object entity, SharedSessionContractImplementor session, EventType type, List<String> fields,
                        String renamedFrom) {
        EntityRefs.Ref ref = EntityRefs.of(entity, (c, id) -> loaded(session, c, id));
        if (ref == null) {
            return;
        }
        EventType t = EntityRefs.partOfParent(entity) ? EventType.CHANGED : type;
        List<String> f = EntityRefs.partOfParent(entity) ? List.of("extents") : fields;
        Map<String, Object> data = new LinkedHashMap<>();
        if (!f.isEmpty()) {
            data.put("fields", List.copyOf(f));
        }
        if (renamedFrom != null) {
            data.put("renamedFrom", renamedFrom);
        }
        // a member row carries its state and fault reason: the event does too
        ArrayMemberEntity member = entity instanceof ArrayMemberEntity m && t != EventType.DELETED ? m : null;
        Event.Draft draft = new Event.Draft(t, ref.kind(), ref.object(), ref.parent(),
                member == null ? null : member.getState(), member == null ? null : member.getFaultReason(), data);
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            hub.publish(draft);
            return;
        }
        Pending pending = (Pending) TransactionSynchronizationManager.getResource(Pending.class);
        if (pending == null) {
            pending = new Pending(hub);
            TransactionSynchronizationManager.bindResource(Pending.class, pending);
            TransactionSynchronizationManager.registerSynchronization(pending);
        }
        pending.add(draft);
    }

    /** The row of {@code type} and {@code id} if the session has it loaded; never a query. */
    private static Object loaded(SharedSessionContractImplementor session, Class<?> type, Long id) {
        if (id == null) {
            return null;
        }
        EntityPersister persister = session.getFactory().getMappingMetamodel().getEntityDescriptor(type);
        return session.getPersistenceContextInternal().getEntity(session.generateEntityKey(id, persister));
    }

    /** One transaction's events, merged per object, published once it has committed. */
    private static final class Pending implements TransactionSynchronization {
        private final EventHub hub;
        /** Only touched by the transaction's thread. */
        private final Map<String, Event.Draft> byObject = new LinkedHashMap<>();

        Pending(EventHub hub) {
            this.hub = hub;
        }

        void add(Event.Draft d) {
            String key = d.kind() + "/" + d.object();
            Event.Draft before = byObject.get(key);
            if (before == null) {
                byObject.put(key, d);
            } else if (before.type() == EventType.CREATED && d.type() == EventType.DELETED) {
                byObject.remove(key);
            } else if (before.type() == EventType.CREATED) {
                // created, then changed in the same transaction: still "created", in its newest state
                byObject.put(key, new Event.Draft(EventType.CREATED, d.kind(), d.object(),
                        d.parent() != null ? d.parent() : before.parent(), d.state(), d.reason(), before.data()));
            } else {
                byObject.put(key, merged(before, d));
            }
        }

        /** changed + changed: one change naming every field; changed + deleted: deleted. */
        private static Event.Draft merged(Event.Draft before, Event.Draft d) {
            if (d.type() != EventType.CHANGED || before.type() != EventType.CHANGED) {
                return d;
            }
            Map<String, Object> data = new LinkedHashMap<>(before.data());
            List<String> fields = new ArrayList<>();
            for (Map<String, Object> m : List.of(before.data(), d.data())) {
                if (m.get("fields") instanceof List<?> l) {
                    l.forEach(x -> {
                        if (!fields.contains(x.toString())) {
                            fields.add(x.toString());
                        }
                    });
                }
            }
            data.putAll(d.data());
            if (!fields.isEmpty()) {
                data.put("fields", List.copyOf(fields));
            }
            if (before.data().containsKey("renamedFrom")) {
                data.put("renamedFrom", before.data().get("renamedFrom"));
            }
            return new Event.Draft(EventType.CHANGED, d.kind(), d.object(), d.parent() != null ? d.parent() : before.parent(),
                    d.state(), d.reason(), data);
        }

        @Override
        public void afterCompletion(int status) {
            TransactionSynchronizationManager.unbindResourceIfPossible(Pending.class);
            if (status == STATUS_COMMITTED) {
                byObject.values().forEach(hub::publish);
            }
        }
    }
}
