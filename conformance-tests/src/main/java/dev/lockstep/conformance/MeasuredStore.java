package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * Wraps a store so that every call is timed into {@link Latencies}, keeping exactly the capability
 * mixins the store has (the wrapper is a dynamic proxy over the same interfaces, so {@code
 * instanceof} answers as it does for the store). A write is timed from {@code newOutputStream} to
 * {@code close}.
 */
final class MeasuredStore {

  private MeasuredStore() {}

  static FileIO wrap(FileIO store, Latencies latencies) {
    return (FileIO)
        Proxy.newProxyInstance(
            MeasuredStore.class.getClassLoader(),
            StoreInterfaces.of(store),
            (proxy, method, args) -> {
              if (method.getDeclaringClass() == Object.class) {
                return StoreInterfaces.objectMethod(proxy, store, method, args, "measured");
              }
              long start = System.nanoTime();
              Object result;
              try {
                result = method.invoke(store, args);
              } catch (InvocationTargetException e) {
                latencies.record("store." + method.getName(), System.nanoTime() - start);
                throw e.getCause();
              }
              if (result instanceof OutputStream out
                  && method.getName().equals("newOutputStream")) {
                return new FilterOutputStream(out) {
                  @Override
                  public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                  }

                  @Override
                  public void close() throws IOException {
                    try {
                      out.close();
                    } finally {
                      latencies.record("store.write", System.nanoTime() - start);
                    }
                  }
                };
              }
              latencies.record("store." + method.getName(), System.nanoTime() - start);
              return result;
            });
  }
}
