package dev.lockstep.flink.sink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Versioned Java serialization of the engine's serializable records ({@code CommitMessage}, {@code
 * Split}) inside the connector's committables, states and splits. Version 1; a later format gets a
 * new version and reads this one.
 */
public final class JavaSerializer<T extends Serializable> implements SimpleVersionedSerializer<T> {

  private final Class<T> type;

  public JavaSerializer(Class<T> type) {
    this.type = type;
  }

  @Override
  public int getVersion() {
    return 1;
  }

  @Override
  public byte[] serialize(T value) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    return bytes.toByteArray();
  }

  @Override
  public T deserialize(int version, byte[] serialized) throws IOException {
    if (version != 1) {
      throw new IOException(
          "Cannot read a "
              + type.getSimpleName()
              + " of format version "
              + version
              + " (this connector reads version 1); restore with the connector version"
              + " that wrote the checkpoint.");
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(serialized)) {
          @Override
          protected Class<?> resolveClass(java.io.ObjectStreamClass desc)
              throws IOException, ClassNotFoundException {
            try {
              return Class.forName(desc.getName(), false, JavaSerializer.class.getClassLoader());
            } catch (ClassNotFoundException e) {
              return super.resolveClass(desc);
            }
          }
        }) {
      return type.cast(in.readObject());
    } catch (ClassNotFoundException e) {
      throw new IOException("Cannot read a " + type.getSimpleName() + ": " + e.getMessage(), e);
    }
  }
}
