package io.gpuremediator.simapi;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * What the mock keeps private and the emulation needs, reached by reflection here (kubernetes-server-mock 7.8.0): its CRUD
 * dispatcher, replaced by one over an indexed store ({@link IndexedCrudDispatcher}, which reads its own parent's fields),
 * the lock every write of that store holds, and the set of its open watches.
 */
final class MockInternals {
  private final IndexedCrudDispatcher store;
  private final ReadWriteLock lock;
  private final Set<?> watches;

  /** Puts an {@link IndexedCrudDispatcher} in the place of the mixed dispatcher's own CRUD dispatcher, before any request. */
  MockInternals(KubernetesMixedDispatcher mixed) {
    store = new IndexedCrudDispatcher();
    write(KubernetesMixedDispatcher.class, mixed, "kubernetesCrudDispatcher", store);
    lock = store.lock();
    watches = (Set<?>) read(KubernetesCrudDispatcher.class, store, "watchEventListeners");
  }

  /** The CRUD dispatcher, whose map is the store. */
  IndexedCrudDispatcher store() {
    return store;
  }

  /**
   * No write tells this watch anything from now on. A write sends its events to every open watch while it holds the
   * store's write lock; a watch whose sender had already stopped threw from that write, which then lost its answer and
   * the events of every watch after it. Removed under that lock, the watch is in no write still under way.
   */
  void forget(WebSocketListener watch) {
    lock.writeLock().lock();
    try {
      watches.remove(watch);
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** A field the mock keeps private, read. */
  static Object read(Class<?> type, Object owner, String field) {
    try {
      Field f = type.getDeclaredField(field);
      f.setAccessible(true);
      return f.get(owner);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the mock keeps no " + field + " where this fabric8 version was read", e);
    }
  }

  /** A field the mock keeps private (final, set once by its constructor), set before any request reads it. */
  static void write(Class<?> type, Object owner, String field, Object value) {
    try {
      Field f = type.getDeclaredField(field);
      f.setAccessible(true);
      f.set(owner, value);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the mock keeps no " + field + " where this fabric8 version was read", e);
    }
  }
}
