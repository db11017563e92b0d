package com.example.greetings;

import java.util.concurrent.CompletableFuture;

import io.rdma.spring.listener.RdmaListener;
import io.rdma.spring.template.RdmaOperations;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

@Component
public class Greetings implements ApplicationRunner {

    public record Greeting(String name) {
    }

    public record Reply(String text) {
    }

    private final RdmaOperations rdma;

    public Greetings(RdmaOperations rdma) {
        this.rdma = rdma;
    }

    /** Asks over the queue pair "greeter"; the future completes with the listener's reply. */
    public CompletableFuture<Reply> greet(String name) {
        return rdma.convertSendAndReceive("greeter", new Greeting(name), Reply.class);
    }

    /** Answers every greeting that arrives on a connection the listener "greetings" accepted. */
    @RdmaListener(connectionListener = "greetings")
    Reply answer(Greeting greeting) {
        return new Reply("hello, " + greeting.name());
    }

    @Override
    public void run(ApplicationArguments args) {
        System.out.println("received: " + greet("RDMA").join().text());
    }
}
