// The active object of the thesis, by hand: one thread and one FIFO queue per object. A void
// message is posted and its sender goes on at once; any other message is a future the sender
// waits on. Every message runs on the object's thread, in the order it was sent.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

class ActiveObject {
 public:
  ActiveObject() : thread_([this] { loop(); }) {}
  ActiveObject(const ActiveObject&) = delete;
  ActiveObject& operator=(const ActiveObject&) = delete;

  // Drains the queue, then ends the thread.
  ~ActiveObject() {
    post(std::function<void()>());
    thread_.join();
  }

  // A void message: queued, the sender does not wait.
  void post(std::function<void()> message) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(message));
    }
    cv_.notify_one();
  }

  // A message with a result: queued behind earlier ones; the sender waits for the result.
  template <class F>
  auto await(F message) -> decltype(message()) {
    typedef decltype(message()) R;
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(message));
    std::future<R> result = task->get_future();
    post([task] { (*task)(); });
    return result.get();
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> message;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !queue_.empty(); });
        message = std::move(queue_.front());
        queue_.pop_front();
      }
      if (!message) return;  // the destructor's stop marker
      message();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::thread thread_;  // last: starts after the queue exists
};
