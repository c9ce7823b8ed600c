package io.floe.spark.util;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Resolves the options of one read or one write in one order: the read or write option (names in
 * any case), then the session conf {@code <sessionPrefix><option>}, then the table property, then
 * the default. Values that do not parse fail with a message that starts with the action, names the
 * option and quotes the value given.
 *
 * <p>Callers declare each option's table property and default once, where they ask for it; this
 * class holds no defaults of its own.
 */
public final class OptionResolver {
  private final String action;
  private final Map<String, String> options;
  private final SQLConf session;
  private final String sessionPrefix;
  private final Map<String, String> tableProperties;
  private final Map<String, String> sessionAliases;

  /**
   * @param action what fails on a bad value, such as {@code "Cannot read"} or {@code "Cannot write
   *     to db.t"}
   * @param options the read or write options the caller gave
   * @param session the session conf, or null outside a session
   * @param sessionPrefix the prefix of session confs that set an option, such as {@code
   *     "spark.floe.read."}
   * @param tableProperties the table's properties, or null for none
   */
  public OptionResolver(
      String action,
      Map<String, String> options,
      SQLConf session,
      String sessionPrefix,
      Map<String, String> tableProperties) {
    this.action = Objects.requireNonNull(action, "action is null");
    this.options = Objects.requireNonNull(options, "options is null");
    this.session = session;
    this.sessionPrefix = Objects.requireNonNull(sessionPrefix, "sessionPrefix is null");
    this.tableProperties = tableProperties == null ? Map.of() : tableProperties;
    this.sessionAliases = Map.of();
  }

  private OptionResolver(OptionResolver base, Map<String, String> sessionAliases) {
    this.action = base.action;
    this.options = base.options;
    this.session = base.session;
    this.sessionPrefix = base.sessionPrefix;
    this.tableProperties = base.tableProperties;
    this.sessionAliases = Map.copyOf(sessionAliases);
  }

  /**
   * This resolver, consulting for each option named in {@code aliases} one more session conf,
   * after {@code <sessionPrefix><option>} and before the table property: the official runtime's
   * name for the same setting, so that a job configured for it keeps its meaning while Floe's own
   * conf still wins when both are set.
   *
   * @param aliases option name (lower case) to the full name of the other session conf
   */
  public OptionResolver withSessionAliases(Map<String, String> aliases) {
    return new OptionResolver(this, aliases);
  }

  /**
   * Fails for any option not in {@code known} (compared in lower case).
   *
   * @param kind how the message names the options, such as {@code "read"}
   */
  public void rejectUnknown(Set<String> known, String kind) {
    rejectUnknown(known, Set.of(), kind);
  }

  /**
   * Fails for any option not in {@code known} whose name starts with none of {@code
   * knownPrefixes} (both compared in lower case).
   *
   * @param kind how the message names the options, such as {@code "write"}
   */
  public void rejectUnknown(Set<String> known, Set<String> knownPrefixes, String kind) {
    Set<String> unknown = new TreeSet<>();
    for (String key : options.keySet()) {
      String lower = key.toLowerCase(Locale.ROOT);
      if (!known.contains(lower) && knownPrefixes.stream().noneMatch(lower::startsWith)) {
        unknown.add(key);
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          action + ": unknown " + kind + " option(s) " + unknown + "; known options are "
              + new TreeSet<>(known)
              + (knownPrefixes.isEmpty() ? "" : " and those starting with " + new TreeSet<>(knownPrefixes)));
    }
  }

  /** Whether the caller gave the option itself. */
  public boolean given(String option) {
    return optionOnly(option) != null;
  }

  /** The option as the caller gave it, ignoring session conf and table properties; or null. */
  public String optionOnly(String option) {
    for (Map.Entry<String, String> entry : options.entrySet()) {
      if (entry.getKey().equalsIgnoreCase(option)) {
        return entry.getValue();
      }
    }
    return null;
  }

  /**
   * The option, else the session conf, else the table property ({@code tableProperty} may be null
   * when there is none); null when none is set.
   */
  public String string(String option, String tableProperty) {
    String value = optionOnly(option);
    if (value == null && session != null) {
      value = session.getConfString(sessionPrefix + option, null);
      String alias = sessionAliases.get(option.toLowerCase(Locale.ROOT));
      if (value == null && alias != null) {
        value = session.getConfString(alias, null);
      }
    }
    if (value == null && tableProperty != null) {
      value = tableProperties.get(tableProperty);
    }
    return value;
  }

  /** The value as a whole number, or null when none is set. */
  public Long optionalLong(String option, String tableProperty) {
    return parsed(option, tableProperty, this::parseLong);
  }

  /** The value as a whole number, or {@code defaultValue} when none is set. */
  public long longValue(String option, String tableProperty, long defaultValue) {
    return Objects.requireNonNullElse(optionalLong(option, tableProperty), defaultValue);
  }

  /** The value as an int, or null when none is set. */
  public Integer optionalInt(String option, String tableProperty) {
    return parsed(option, tableProperty, this::parseInt);
  }

  /** The value as an int, or {@code defaultValue} when none is set. */
  public int intValue(String option, String tableProperty, int defaultValue) {
    return Objects.requireNonNullElse(optionalInt(option, tableProperty), defaultValue);
  }

  /** The value as true or false, or {@code defaultValue} when none is set. */
  public boolean booleanValue(String option, String tableProperty, boolean defaultValue) {
    Boolean value =
        parsed(
            option,
            tableProperty,
            (name, given) -> OptionValues.parseBoolean(action, name, given));
    return Objects.requireNonNullElse(value, defaultValue);
  }

  private <T> T parsed(String option, String tableProperty, BiFunction<String, String, T> parse) {
    String value = string(option, tableProperty);
    return value == null ? null : parse.apply(option, value);
  }

  /** A whole number given for {@code option}. */
  public long parseLong(String option, String value) {
    return OptionValues.parseLong(action, option, value, "a whole number");
  }

  private int parseInt(String option, String value) {
    long parsed = parseLong(option, value);
    if (parsed > Integer.MAX_VALUE || parsed < Integer.MIN_VALUE) {
      throw new IllegalArgumentException(
          action + ": option '" + option + "' is out of range: '" + value + "'");
    }
    return (int) parsed;
  }
}
