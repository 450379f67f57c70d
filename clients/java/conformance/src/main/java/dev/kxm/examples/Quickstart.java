package dev.kxm.examples;

import dev.kxm.hub.client.HubClient;
import dev.kxm.hub.client.HubException;
import dev.kxm.hub.client.Subscription;
import dev.kxm.v1.Message;
import dev.kxm.v1.SendMessageResponse;
import dev.kxm.v1.SubscribeResponse;
import java.time.Duration;

/**
 * Two agents on one hub: bob answers every request with "pong: <request>", alice asks him "ping"
 * and prints the answer. Everything (address, project token) comes from KXM_ADDR and KXM_TOKEN, or
 * from the credentials file of a hub started in this folder or of the user's profile.
 */
public final class Quickstart {
  public static void main(String[] args) throws InterruptedException {
    String prefix = System.getenv("KXM_NAME_PREFIX");
    prefix = prefix == null || prefix.isEmpty() ? "quickstart" : prefix;
    try (HubClient alice = HubClient.create(); HubClient bob = HubClient.create()) {
      alice.register(prefix + "-alice");
      bob.register(prefix + "-bob");

      // Bob's inbox: it reconnects and resumes by itself; its first event says it is open.
      Subscription inbox = bob.subscribe(0);
      inbox.next(); // ready
      Thread answering = new Thread(() -> {
        try {
          while (inbox.hasNext()) {
            SubscribeResponse event = inbox.next();
            if (event.hasMessage()) {
              Message request = event.getMessage();
              bob.ack(request.getId());
              bob.reply(request.getId(), "pong: " + request.getContent());
            }
          }
        } catch (HubException e) {
          System.err.println("bob: " + e);
        }
      });
      answering.start();

      // Alice asks, and the hub waits up to 10 s for the reply before answering.
      SendMessageResponse sent = alice.send(prefix + "-bob", "ping", null, Duration.ofSeconds(10));
      if (!sent.getTerminal()) {
        System.err.println("error: no answer within 10 s");
        System.exit(1);
      }
      System.out.println("answered: " + sent.getMessage().getReply().getContent());

      inbox.close();
      answering.join();
    } catch (HubException e) {
      System.err.println("error: " + e); // code, reason and message: NOT_FOUND ERROR_REASON_...: ...
      System.exit(1);
    }
  }
}
