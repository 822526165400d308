/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.common;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/** The evaluation programs' command lines: positional arguments, then {@code --name value} options and switches. */
public final class Options {
    private Options() {}

    /** Prints {@code usage} and exits with status 2 unless {@code args} holds at least {@code positional} arguments. */
    public static void requirePositional(String[] args, int positional, String usage) {
        if (args.length < positional) {
            System.err.println("usage: " + usage);
            System.exit(2);
        }
    }

    /**
     * The options after {@code positional} arguments ({@link #requirePositional}, then {@link #parse(String[], int,
     * Collection, Collection)}).
     */
    public static Map<String, String> parse(
            String[] args, int positional, String usage, Collection<String> switches, Collection<String> names) {
        requirePositional(args, positional, usage);
        return parse(args, positional, switches, names);
    }

    /**
     * The options from {@code args[from]} on: {@code --name value}, or {@code --name} alone for a name in
     * {@code switches} (value {@code "true"}). Rejects a word that is not an option, a missing value, and, unless
     * {@code names} is null, a name not in it.
     */
    public static Map<String, String> parse(
            String[] args, int from, Collection<String> switches, Collection<String> names) {
        Map<String, String> opt = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--") == false) {
                throw new IllegalArgumentException("unexpected argument " + a);
            }
            String key = a.substring(2);
            if (names != null && names.contains(key) == false) {
                throw new IllegalArgumentException("unknown option --" + key);
            }
            if (switches.contains(key)) {
                opt.put(key, "true");
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + a);
                }
                opt.put(key, args[++i]);
            }
        }
        return opt;
    }

    /** Comma-separated integers; none for a blank string. */
    public static int[] ints(String csv) {
        return csv.isBlank()
                ? new int[0]
                : Arrays.stream(csv.split(","))
                        .map(String::trim)
                        .mapToInt(Integer::parseInt)
                        .toArray();
    }
}
