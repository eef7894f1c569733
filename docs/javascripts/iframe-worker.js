// SPDX-License-Identifier: MIT
// A Worker for pages read from disk. Chromium refuses `new Worker(url)` on a file:// page, so
// Material's search never starts there. On file:// only, this replaces `Worker` with one that
// runs the worker's script in a hidden same-origin iframe: the script sees `postMessage` and
// `addEventListener("message", ...)` as a worker does, and messages are copied each way with
// `structuredClone`, asynchronously, as between a page and a worker. Served pages keep the
// browser's own Worker. (Material's offline plugin reads "iframe-worker" in this file's name
// and then adds no shim of its own from a CDN.)
(function () {
  "use strict";
  if (location.protocol !== "file:") {
    return;
  }

  class IframeWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._pending = [];
      this._ready = false;
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

    postMessage(data) {
      const copy = structuredClone(data);
      if (this._ready) {
        this._deliver(copy);
      } else {
        this._pending.push(copy);
      }
    }

    terminate() {
      this._frame.remove();
      this._ready = false;
      this._pending = [];
    }

    _deliver(data) {
      const scope = this._frame.contentWindow;
      if (scope) {
        setTimeout(() => scope.dispatchEvent(new scope.MessageEvent("message", { data })), 0);
      }
    }

    _emit(event) {
      this.dispatchEvent(event);
      const handler = event.type === "message" ? this.onmessage : this.onerror;
      if (typeof handler === "function") {
        handler.call(this, event);
      }
    }
  }

  window.Worker = IframeWorker;
})();
