package dev.lockstep.conformance;

import dev.lockstep.options.OptionSet;
import dev.lockstep.options.OptionsProvider;

/** Declares the kit's {@code conformance.*} settings ({@link ConformanceSettings}) as a service. */
public final class ConformanceOptions implements OptionsProvider {

  @Override
  public OptionSet options() {
    return ConformanceSettings.OPTIONS;
  }
}
