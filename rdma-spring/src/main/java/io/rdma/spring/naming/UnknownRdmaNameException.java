package io.rdma.spring.naming;

import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * A name written in code names nothing declared: a queue pair, connection listener, service
 * connection or error handler bean named in an {@code @RdmaListener} attribute, a queue pair or
 * channel named in a template call, a listener container's id. Its message alone says where the
 * name was written, the declared name it was most likely meant to be ({@link NearestName}) and
 * every declared name of its kind, so it is helpful in a log or a test without Spring Boot's
 * failure analysis, which adds {@link #action()}.
 *
 * <p>For example {@code new UnknownRdmaNameException("connection listener", "greeting",
 * "@RdmaListener(connectionListener) on com.example.Greeter.greet(String)", List.of("greetings", "kv"),
 * "rdma.connections.listeners")} has the message <em>@RdmaListener(connectionListener) on
 * com.example.Greeter.greet(String) names connection listener 'greeting', which is not declared.
 * Did you mean 'greetings'? Declared in rdma.connections.listeners: [greetings, kv].</em>
 *
 * <p>An {@link IllegalArgumentException}: the name is an argument the caller got wrong.
 */
public class UnknownRdmaNameException extends IllegalArgumentException {

    private final String kind;
    private final String name;
    private final String site;
    private final List<String> declared;
    private final String declaredIn;
    private final @Nullable String nearest;

    /**
     * @param kind       what the name should name, in words: {@code queue pair}, {@code connection listener},
     *                   {@code service connection}, {@code channel}, {@code error handler bean},
     *                   {@code listener container id}
     * @param name       the name as written
     * @param site       where it was written, as a developer finds it: the annotation attribute and the
     *                   method it is on ({@code @RdmaListener(connectionListener) on com.example.Greeter.greet(String)}),
     *                   or the call ({@code RdmaTemplate.send(queuePair, ...)})
     * @param declared   every name of that kind that is declared (listed sorted; may be empty)
     * @param declaredIn where names of that kind are declared, to follow "declared in": a property
     *                   ({@code rdma.connections.listeners},
     *                   {@code rdma.devices.<device>.protection-domains.<protection-domain>.queue-pairs}),
     *                   or for beans and ids the place in code
     *                   ({@code the application context, as beans implementing RdmaListenerErrorHandler})
     */
    public UnknownRdmaNameException(String kind, String name, String site, Collection<String> declared,
                                    String declaredIn) {
        this(kind, name, site, List.copyOf(new TreeSet<>(declared)), declaredIn, NearestName.of(name, declared));
    }

    private UnknownRdmaNameException(String kind, String name, String site, List<String> declared, String declaredIn,
                                     @Nullable String nearest) {
        super(site + " names " + kind + " '" + name + "', which is not declared. "
                + (nearest != null ? "Did you mean '" + nearest + "'? " : "")
                + (declared.isEmpty() ? "No " + kind + " is declared in " + declaredIn + "."
                        : "Declared in " + declaredIn + ": " + declared + "."));
        this.kind = kind;
        this.name = name;
        this.site = site;
        this.declared = declared;
        this.declaredIn = declaredIn;
        this.nearest = nearest;
    }

    /** What the name should name, in words, e.g. {@code connection listener}. */
    public String kind() {
        return kind;
    }

    /** The name as written. */
    public String name() {
        return name;
    }

    /** Where the name was written: the annotation attribute and its method, or the call. */
    public String site() {
        return site;
    }

    /** Every declared name of this kind, sorted; empty when none is declared. */
    public List<String> declared() {
        return declared;
    }

    /** Where names of this kind are declared, e.g. {@code rdma.connections.listeners}. */
    public String declaredIn() {
        return declaredIn;
    }

    /** The declared name {@link #name()} was most likely meant to be, or null when none is near. */
    public @Nullable String nearest() {
        return nearest;
    }

    /** What to do: correct the name where it was written (to the nearest name when there is one), or declare it. */
    public String action() {
        String declaration = kind + " '" + name + "' in " + declaredIn;
        if (nearest != null) {
            return "Change '" + name + "' to '" + nearest + "' in " + site + ", or declare " + declaration + ".";
        }
        if (declared.isEmpty()) {
            return "Declare " + declaration + ", or correct the name in " + site + ".";
        }
        return "Change '" + name + "' in " + site + " to one of " + declared + ", or declare " + declaration + ".";
    }
}
