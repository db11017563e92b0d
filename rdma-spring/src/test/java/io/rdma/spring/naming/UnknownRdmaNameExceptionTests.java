package io.rdma.spring.naming;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The message alone, as a log or a test without Spring Boot shows it, says where, what was meant and what exists. */
class UnknownRdmaNameExceptionTests {

    private static final String SITE = "@RdmaListener(connectionListener) on com.example.Greeter.greet(String)";

    @Test
    void aMisspeltNameOffersTheNearestDeclaredOneAndListsThemAll() {
        UnknownRdmaNameException unknown = new UnknownRdmaNameException("connection listener", "greeting", SITE,
                Set.of("kv", "greetings"), "rdma.connections.listeners");
        assertEquals(SITE + " names connection listener 'greeting', which is not declared. Did you mean 'greetings'?"
                + " Declared in rdma.connections.listeners: [greetings, kv].", unknown.getMessage());
        assertEquals("greetings", unknown.nearest());
        assertEquals(List.of("greetings", "kv"), unknown.declared());
        assertEquals("Change 'greeting' to 'greetings' in " + SITE + ", or declare connection listener 'greeting' in"
                + " rdma.connections.listeners.", unknown.action());
    }

    @Test
    void aNameNearNothingListsTheDeclaredNamesOnly() {
        UnknownRdmaNameException unknown = new UnknownRdmaNameException("queue pair", "orders",
                "RdmaTemplate.send(queuePair, payload)", List.of("rpc", "greeter"),
                "rdma.devices.<device>.protection-domains.<protection-domain>.queue-pairs");
        assertEquals("RdmaTemplate.send(queuePair, payload) names queue pair 'orders', which is not declared."
                + " Declared in rdma.devices.<device>.protection-domains.<protection-domain>.queue-pairs: [greeter, rpc].",
                unknown.getMessage());
        assertNull(unknown.nearest());
        assertEquals("Change 'orders' in RdmaTemplate.send(queuePair, payload) to one of [greeter, rpc], or declare"
                + " queue pair 'orders' in rdma.devices.<device>.protection-domains.<protection-domain>.queue-pairs.",
                unknown.action());
    }

    @Test
    void nothingDeclaredOfTheKindSaysSo() {
        UnknownRdmaNameException unknown = new UnknownRdmaNameException("connection listener", "greetings", SITE,
                List.of(), "rdma.connections.listeners");
        assertEquals(SITE + " names connection listener 'greetings', which is not declared. No connection listener is"
                + " declared in rdma.connections.listeners.", unknown.getMessage());
        assertEquals("Declare connection listener 'greetings' in rdma.connections.listeners, or correct the name in "
                + SITE + ".", unknown.action());
    }
}
