package dev.lockstep.conformance;

import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.UncertainWriteException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps the vendor's store and injects faults where a {@link FaultPlan} says, keeping exactly the
 * store's capability mixins (a dynamic proxy over the same interfaces):
 *
 * <ul>
 *   <li>{@link Fault#FAIL_BEFORE}: the call throws an {@link IOException} and never reaches the
 *       store. For a streamed write the failure comes from {@code newOutputStream}, before any byte
 *       is sent.
 *   <li>{@link Fault#LOSE_ANSWER} on a write: the call reaches the store and completes, then an
 *       {@link UncertainWriteException} is thrown instead of the answer: "the write lands but its
 *       answer is lost". For a streamed write this happens at {@code close}, after the stream
 *       closed.
 * </ul>
 *
 * The kit's main code cannot use lock-api's test fixtures, so it carries this small wrapper.
 */
final class FaultInjectingStore {

  private FaultInjectingStore() {}

  /** Counts of injected faults, for assertions that a fault-injecting check injected anything. */
  static final class Injected {
    final AtomicLong failedBefore = new AtomicLong();
    final AtomicLong answersLost = new AtomicLong();

    long total() {
      return failedBefore.get() + answersLost.get();
    }

    @Override
    public String toString() {
      return failedBefore.get()
          + " calls failed before reaching the store, "
          + answersLost.get()
          + " writes landed with their answer lost";
    }
  }

  static FileIO wrap(FileIO store, FaultPlan plan, Injected injected) {
    return (FileIO)
        Proxy.newProxyInstance(
            FaultInjectingStore.class.getClassLoader(),
            StoreInterfaces.of(store),
            (proxy, method, args) -> {
              if (method.getDeclaringClass() == Object.class) {
                return StoreInterfaces.objectMethod(proxy, store, method, args, "fault-injecting");
              }
              String operation = operation(method);
              if (operation == null) {
                return invoke(store, method, args);
              }
              Path path = (Path) args[method.getName().equals("renameAtomically") ? 1 : 0];
              Fault fault = plan.decide(operation, path);
              boolean write =
                  operation.equals("write")
                      || operation.equals("createAtomically")
                      || operation.equals("renameAtomically");
              if (fault == Fault.FAIL_BEFORE || (fault == Fault.LOSE_ANSWER && !write)) {
                injected.failedBefore.incrementAndGet();
                throw new IOException(
                    "Injected failure: " + operation + " of " + path + " did not reach the store");
              }
              if (fault == Fault.NONE) {
                return invoke(store, method, args);
              }
              try {
                return loseAnswer(store, method, args, operation, path, injected);
              } catch (UncertainWriteException e) {
                throw e;
              } catch (IOException e) {
                // The store's own answer (a conflict, an error) is lost as well: that is what an
                // SDK
                // retry answering 412 to our own first attempt, or a reset connection, looks like.
                injected.answersLost.incrementAndGet();
                throw new UncertainWriteException(
                    path,
                    "injected: the "
                        + operation
                        + " reached the"
                        + " store, its answer ("
                        + e
                        + ") was lost",
                    e);
              }
            });
  }

  private static Object loseAnswer(
      FileIO store, Method method, Object[] args, String operation, Path path, Injected injected)
      throws Throwable {
    if (operation.equals("write")) {
      OutputStream out = (OutputStream) invoke(store, method, args);
      return new FilterOutputStream(out) {
        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
          out.close();
          injected.answersLost.incrementAndGet();
          throw new UncertainWriteException(
              path, "injected: the write landed, its answer" + " was lost", null);
        }
      };
    }
    invoke(store, method, args);
    injected.answersLost.incrementAndGet();
    throw new UncertainWriteException(
        path, "injected: the " + operation + " landed, its" + " answer was lost", null);
  }

  private static String operation(Method method) {
    switch (method.getName()) {
      case "newOutputStream":
        return "write";
      case "newInputStream":
        return "read";
      case "createAtomically":
      case "renameAtomically":
      case "exists":
      case "getStatus":
      case "list":
      case "delete":
      case "mkdirs":
        return method.getName();
      default:
        return null;
    }
  }

  private static Object invoke(FileIO store, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(store, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
