package io.floe.spark.cli;

import io.floe.spark.util.Redaction;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The command line of {@code floe-sql}, parsed: where the SQL comes from and how to set up the
 * Spark session. Options take their value as the next argument or after {@code =} ({@code
 * --master=local[4]}).
 *
 * @param sql the statements given with {@code -e}, or null
 * @param file the script given with {@code -f}, or null; with neither, standard input is read
 * @param master the Spark master URL, or null for the default
 * @param warehouse the warehouse of catalog {@code floe} ({@code --warehouse}), or null
 * @param propertiesFile a spark-defaults.conf style file of settings, or null
 * @param conf the {@code --conf key=value} settings, in the order given
 * @param maxRows the most rows printed per result
 * @param silent whether to leave out the echo of each statement and the {@code OK} lines
 * @param help whether usage was asked for
 */
record CliArguments(
    String sql,
    Path file,
    String master,
    String warehouse,
    Path propertiesFile,
    Map<String, String> conf,
    int maxRows,
    boolean silent,
    boolean help) {

  static final int DEFAULT_MAX_ROWS = 1000;

  static final String USAGE =
      String.join(
          "\n",
          "Usage: floe-sql [options] [-e \"SQL; SQL\" | -f FILE]",
          "Runs SQL statements on a local Spark session with Floe as catalog 'floe' (the current"
              + " catalog).",
          "With neither -e nor -f, statements are read from standard input.",
          "",
          "  -e, --execute SQL         run these statements, separated by ';'",
          "  -f, --file FILE           run the statements in FILE",
          "  --master URL              Spark master (default local[2])",
          "  --warehouse DIR           warehouse of catalog floe (default ./floe-warehouse)",
          "  --conf KEY=VALUE          a Spark or catalog setting, e.g."
              + " spark.sql.catalog.floe.type=jdbc (repeatable)",
          "  --properties-file FILE    settings from a spark-defaults.conf style file",
          "  --max-rows N              print at most N rows of each result (default "
              + DEFAULT_MAX_ROWS + ")",
          "  -s, --silent              do not echo statements or print OK after statements",
          "  -h, --help                print this help",
          "",
          "Stops at the first failing statement, with exit code 1.");

  CliArguments {
    conf = Map.copyOf(Objects.requireNonNull(conf, "conf is null"));
  }

  /**
   * Parses the arguments of {@code main}.
   *
   * @throws IllegalArgumentException for an unknown option, a missing or malformed value, or both
   *     {@code -e} and {@code -f}
   */
  static CliArguments parse(String... args) {
    Objects.requireNonNull(args, "args is null");
    String sql = null;
    Path file = null;
    String master = null;
    String warehouse = null;
    Path propertiesFile = null;
    Map<String, String> conf = new LinkedHashMap<>();
    int maxRows = DEFAULT_MAX_ROWS;
    boolean silent = false;
    boolean help = false;

    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg;
      String inlineValue = null;
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 0) {
        name = arg.substring(0, equals);
        inlineValue = arg.substring(equals + 1);
      }
      if (name.equals("-h") || name.equals("--help")) {
        help = true;
        continue;
      }
      if (name.equals("-s") || name.equals("--silent")) {
        silent = true;
        continue;
      }
      if (!takesValue(name)) {
        throw new IllegalArgumentException(
            "Cannot parse the command line: "
                + (arg.startsWith("-") ? "unknown option " : "unexpected argument ")
                + arg
                + " (see --help)");
      }
      String value = inlineValue;
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(
              "Cannot parse the command line: option " + name + " needs a value");
        }
        i += 1;
        value = args[i];
      }
      switch (name) {
        case "-e":
        case "--execute":
          sql = value;
          break;
        case "-f":
        case "--file":
          file = Path.of(value);
          break;
        case "--master":
          master = value;
          break;
        case "--warehouse":
          warehouse = value;
          break;
        case "--properties-file":
          propertiesFile = Path.of(value);
          break;
        case "--conf":
          addConf(conf, value);
          break;
        default:
          maxRows = parseMaxRows(value);
          break;
      }
    }
    if (sql != null && file != null) {
      throw new IllegalArgumentException(
          "Cannot parse the command line: give either -e or -f, not both");
    }
    return new CliArguments(
        sql, file, master, warehouse, propertiesFile, conf, maxRows, silent, help);
  }

  /** Shows the settings with secret values redacted. */
  @Override
  public String toString() {
    return "CliArguments{file=" + file + ", master=" + master + ", warehouse=" + warehouse
        + ", propertiesFile=" + propertiesFile + ", conf=" + Redaction.redact(conf)
        + ", maxRows=" + maxRows + ", silent=" + silent + ", help=" + help + "}";
  }

  private static boolean takesValue(String name) {
    switch (name) {
      case "-e":
      case "--execute":
      case "-f":
      case "--file":
      case "--master":
      case "--warehouse":
      case "--properties-file":
      case "--conf":
      case "--max-rows":
        return true;
      default:
        return false;
    }
  }

  private static void addConf(Map<String, String> conf, String setting) {
    int equals = setting.indexOf('=');
    if (equals <= 0) {
      throw new IllegalArgumentException(
          "Cannot parse the command line: --conf needs KEY=VALUE, not '" + setting + "'");
    }
    conf.put(setting.substring(0, equals).trim(), setting.substring(equals + 1));
  }

  private static int parseMaxRows(String value) {
    try {
      int rows = Integer.parseInt(value.trim());
      if (rows > 0) {
        return rows;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        "Cannot parse the command line: --max-rows needs a positive whole number, not '" + value + "'");
  }
}
