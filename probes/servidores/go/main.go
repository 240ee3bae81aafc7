// HTTP servers for the course's network experiment (notebook 06_red_http).
//
// One binary, two implementations as in the original benchmark: Go's standard
// net/http and the gin framework. Both answer GET / with a short plain string.
//
//	servidor-http -impl nethttp -addr 0.0.0.0:8080
//	servidor-http -impl gin     -addr 0.0.0.0:8080
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/gin-gonic/gin"
)

const body = "Hola desde el servidor del curso"

func main() {
	impl := flag.String("impl", "nethttp", "nethttp or gin")
	addr := flag.String("addr", "0.0.0.0:8080", "listen address")
	flag.Parse()

	var handler http.Handler
	switch *impl {
	case "nethttp":
		mux := http.NewServeMux()
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, body)
		})
		handler = mux
	case "gin":
		gin.SetMode(gin.ReleaseMode)
		router := gin.New()
		router.GET("/", func(c *gin.Context) { c.String(http.StatusOK, body) })
		handler = router
	default:
		fmt.Fprintf(os.Stderr, "unknown -impl %q (nethttp, gin)\n", *impl)
		os.Exit(2)
	}
	log.Printf("%s listening on %s", *impl, *addr)
	log.Fatal(http.ListenAndServe(*addr, handler))
}
