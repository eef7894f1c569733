// SPDX-License-Identifier: MIT
// A Worker for pages read from disk. Chromium refuses `new Worker(url)` on a file:// page, so
// Material's search never starts there. On file:// only, this replaces `Worker` with one that
// runs the worker's script in a hidden same-origin iframe: the script sees `postMessage` and
// `addEventListener("message", ...)` as a worker does, and messages are copied each way with
// `structuredClone` (into the receiving side's realm), asynchronously, as between a page and a
// worker; an uncaught error in the worker's script reaches the page's `error` listeners (its
// message masked as "Script error.", since a file:// script counts as another origin's). A
// terminated worker delivers nothing more. `importScripts` is not available (Material's search
// needs it only for languages other than English). Served pages keep the browser's own Worker. (Material's offline plugin reads "iframe-worker" in this file's name
// and then adds no shim of its own from a CDN.)
(function () {
  "use strict";
  if (location.protocol !== "file:") {
    return;
  }

  class IframeWorker extends EventTarget {
    constructor(url) {
      super();
      this._handlers = {};
      this._pending = [];
      this._ready = false;
      this._terminated = false;
      this._frame = document.createElement("iframe");
      this._frame.hidden = true;
      this._frame.tabIndex = -1;
      this._frame.setAttribute("aria-hidden", "true");
      (document.body || document.documentElement).appendChild(this._frame);
      const scope = this._frame.contentWindow;
      // The worker's global `postMessage(data)` answers the page, not the iframe's own window.
      scope.postMessage = (data) => {
        const copy = structuredClone(data);
        setTimeout(() => this._emit(new MessageEvent("message", { data: copy })), 0);
      };
      scope.addEventListener("error", (event) => {
        this._emit(new ErrorEvent("error", { message: event.message, error: event.error }));
      });
      scope.importScripts = () => {
        throw new Error("importScripts is not available in a worker started from disk");
      };
      const script = scope.document.createElement("script");
      script.src = new URL(url, document.baseURI).href;
      script.onload = () => {
        this._ready = true;
        this._pending.splice(0).forEach((data) => this._deliver(data));
      };
      script.onerror = () => {
        this._emit(new ErrorEvent("error", { message: `cannot load worker script ${script.src}` }));
      };
      scope.document.head.appendChild(script);
    }

    // `onmessage` and `onerror` are event handler attributes: a listener in the place of the
    // first assignment, calling whatever handler is set now.
    get onmessage() {
      return this._handlers.message ?? null;
    }

    set onmessage(handler) {
      this._setHandler("message", handler);
    }

    get onerror() {
      return this._handlers.error ?? null;
    }

    set onerror(handler) {
      this._setHandler("error", handler);
    }

    _setHandler(type, handler) {
      if (!(type in this._handlers)) {
        this.addEventListener(type, (event) => {
          const current = this._handlers[type];
          if (typeof current === "function") {
            current.call(this, event);
          }
        });
      }
      this._handlers[type] = handler;
    }

    postMessage(data) {
      if (this._terminated) {
        return;
      }
      const copy = this._frame.contentWindow.structuredClone(data);
      if (this._ready) {
        this._deliver(copy);
      } else {
        this._pending.push(copy);
      }
    }

    terminate() {
      this._terminated = true;
      this._pending = [];
      this._frame.remove();
    }

    _deliver(data) {
      const scope = this._frame.contentWindow;
      setTimeout(() => {
        if (!this._terminated) {
          scope.dispatchEvent(new scope.MessageEvent("message", { data }));
        }
      }, 0);
    }

    _emit(event) {
      if (this._terminated) {
        return;
      }
      this.dispatchEvent(event);
    }
  }

  window.Worker = IframeWorker;
})();
