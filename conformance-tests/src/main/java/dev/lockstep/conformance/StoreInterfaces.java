package dev.lockstep.conformance;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.SupportsAtomicRename;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * The store interfaces a wrapper must keep so that capability checks by {@code instanceof} hold.
 */
final class StoreInterfaces {

  private StoreInterfaces() {}

  /** {@link FileIO} plus each capability mixin {@code store} implements. */
  static Class<?>[] of(FileIO store) {
    List<Class<?>> interfaces = new ArrayList<>();
    interfaces.add(FileIO.class);
    if (store instanceof SupportsAtomicCreate) {
      interfaces.add(SupportsAtomicCreate.class);
    }
    if (store instanceof SupportsAtomicRename) {
      interfaces.add(SupportsAtomicRename.class);
    }
    return interfaces.toArray(new Class<?>[0]);
  }

  /** {@code equals}, {@code hashCode} and {@code toString} of a proxy over {@code store}. */
  static Object objectMethod(
      Object proxy, FileIO store, Method method, Object[] args, String what) {
    switch (method.getName()) {
      case "equals":
        return proxy == args[0];
      case "hashCode":
        return System.identityHashCode(proxy);
      default:
        return what + "(" + store + ")";
    }
  }
}
