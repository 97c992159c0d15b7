package dev.lockstep.options;

/**
 * A component that declares the options it reads. Store loaders ({@code FileIOLoader}) and lock
 * factories ({@code CatalogLockFactory}) are providers; components that are not found by another
 * service (the commit protocol, the engine, the conformance kit) register an implementation in
 * {@code META-INF/services/dev.lockstep.options.OptionsProvider}, so that {@link OptionCatalog}
 * finds every declared option on the class path.
 */
public interface OptionsProvider {

  /**
   * The options this component reads. The default declares none: then every key of the component is
   * refused as unknown by {@link OptionCatalog#check}, so a vendor's factory should declare its
   * own.
   */
  default OptionSet options() {
    return OptionSet.undeclared(getClass().getName());
  }
}
