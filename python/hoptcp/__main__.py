from hoptcp.entry import main

raise SystemExit(main())
