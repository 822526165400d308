/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Runs a JMH benchmark as JMH would, once, with plain calls: its trial setup (the object's {@code @Setup(Level.Trial)}
 * methods, or the caller's own), then for each {@code @Benchmark} method its iteration and invocation setups and one
 * call, then its trial teardowns. Arguments: a {@link Blackhole}, or a new {@code @State} object after its setups.
 */
final class OneInvocation {
    private static final String BLACKHOLE_CONSENT =
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.";

    /** A trial setup of the caller's, for benchmarks whose own reads a real corpus. */
    interface TrialSetup {
        void run() throws Exception;
    }

    private OneInvocation() {}

    /** Runs {@code bench} with its own trial setup; returns the benchmark methods called. */
    static List<String> run(Object bench) throws Exception {
        return run(bench, () -> setups(bench, Level.Trial));
    }

    static List<String> run(Object bench, TrialSetup trialSetup) throws Exception {
        trialSetup.run();
        List<String> called = new ArrayList<>();
        try {
            for (Method m : methods(bench.getClass(), Benchmark.class)) {
                setups(bench, Level.Iteration);
                setups(bench, Level.Invocation);
                Object[] args = Arrays.stream(m.getParameterTypes())
                        .map(OneInvocation::argument)
                        .toArray();
                invoke(m, bench, args);
                called.add(m.getName());
            }
        } finally {
            for (Method m : methods(bench.getClass(), TearDown.class)) {
                invoke(m, bench);
            }
        }
        return called;
    }

    private static void setups(Object o, Level level) throws Exception {
        for (Method m : methods(o.getClass(), Setup.class)) {
            if (m.getAnnotation(Setup.class).value() == level) {
                invoke(m, o);
            }
        }
    }

    private static Object argument(Class<?> type) {
        if (type == Blackhole.class) {
            return new Blackhole(BLACKHOLE_CONSENT);
        }
        if (type.isAnnotationPresent(State.class) == false) {
            throw new IllegalArgumentException(
                    "a benchmark argument that is neither a Blackhole nor a @State: " + type);
        }
        try {
            Object state = type.getConstructor().newInstance();
            for (Level level : Level.values()) {
                setups(state, level);
            }
            return state;
        } catch (Exception e) {
            throw new IllegalStateException("cannot make the state " + type.getName(), e);
        }
    }

    private static List<Method> methods(Class<?> type, Class<? extends java.lang.annotation.Annotation> annotation) {
        return Arrays.stream(type.getMethods())
                .filter(m -> m.isAnnotationPresent(annotation))
                .sorted(Comparator.comparing(Method::getName))
                .toList();
    }

    private static void invoke(Method m, Object target, Object... args) throws Exception {
        try {
            m.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }
}
