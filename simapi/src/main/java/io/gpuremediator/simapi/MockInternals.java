package io.gpuremediator.simapi;

import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * What the mock keeps private and the emulation needs, read by reflection here only (kubernetes-server-mock 7.8.0): the
 * store of its CRUD dispatcher, the lock every write of that store holds, and the set of its open watches.
 */
final class MockInternals {
  private final CrudDispatcher store;
  private final ReadWriteLock lock;
  private final Set<?> watches;

  MockInternals(KubernetesMixedDispatcher mixed) {
    store = (CrudDispatcher) read(KubernetesMixedDispatcher.class, mixed, "kubernetesCrudDispatcher");
    lock = (ReadWriteLock) read(store.getClass(), store, "lock");
    watches = (Set<?>) read(store.getClass(), store, "watchEventListeners");
  }

  /** The CRUD dispatcher, whose map is the store. */
  CrudDispatcher store() {
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

  private static Object read(Class<?> type, Object owner, String field) {
    try {
      Field f = type.getDeclaredField(field);
      f.setAccessible(true);
      return f.get(owner);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the mock keeps no " + field + " where this fabric8 version was read", e);
    }
  }
}
